"""A level's canonical codes in the stored numbering, and back.

The database keeps every level in the numbering of `ttt_db.ranked.slots` (a slot for every board
of every occupied set), a class's code at its representative and 0 everywhere else, in chunks of
`chunk_slots` slots. The kernels hold a level as the codes of its canonical sets' boards only
(`ttt_db.ranked.step.Level`). `chunks_of_level` lays a level out chunk by chunk (a chunk that would
be all zeros is told as None, so a writer need not compress it); `level_from_chunks` takes the
stored chunks back into a level, every board of a canonical set given its class's code, and names
the slots that hold a code where the stored numbering keeps 0 (damage, or a forgery).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import islice
from typing import Any, Final, TypeVar

from ttt_db.ranked.backend import Backend
from ttt_db.ranked.kernels.sets import SMALL_SIZE, TABLE_SIZE, Ints
from ttt_db.ranked.slots import level_slots
from ttt_db.ranked.step import Level, range_grain
from ttt_db.ranked.tables import RankedTables

BATCH_BYTES: Final = 1 << 22
"""Stored bytes laid out per kernel call."""
DAMAGE_KEPT: Final = 64
"""Damaged slots named per level (all are counted)."""
TAKE_BATCH: Final = 256
"""Stored chunks taken into a level per kernel call."""
T = TypeVar("T")
R = TypeVar("R")


def chunks_of_level(tables: RankedTables, level: Level, chunk_slots: int) -> Iterator[tuple[int, memoryview | None]]:
    """(chunk number, its stored bytes) for every chunk of the level in order; None for a chunk
    whose bytes are all 0. The bytes are valid until the next chunk is asked for."""
    b = tables.backend
    sets = level.sets
    slots = level_slots(tables.cells, sets.depth)
    chunks = -(-slots // chunk_slots)
    per_batch = max(1, BATCH_BYTES // chunk_slots)
    out = b.u8(per_batch * chunk_slots)
    nonzero = b.i64(per_batch)
    small, tab = b.i64(SMALL_SIZE), b.u32(TABLE_SIZE)
    view = memoryview(out).cast("B")
    for first in range(0, chunks, per_batch):
        batch = min(per_batch, chunks - first)
        tables.run.stored_chunks(
            tables.arrays, sets.arrays, first, batch, chunk_slots, slots, level.codes, out, nonzero, small, tab
        )
        for j in range(batch):
            number = first + j
            length = min(chunk_slots, slots - number * chunk_slots)
            yield number, (view[j * chunk_slots : j * chunk_slots + length] if nonzero[j] else None)


@dataclass
class TakenLevel:
    """A level taken from its stored chunks, and the slots that held a code where the stored
    numbering keeps 0 (the first DAMAGE_KEPT of them; `damaged_count` counts all)."""

    level: Level
    damaged: list[int] = field(default_factory=list)
    damaged_count: int = 0


def _as_is(chunk: tuple[int, bytes | None]) -> tuple[int, bytes | None]:
    return chunk


def level_from_chunks(
    tables: RankedTables,
    depth: int,
    chunks: Iterable[Any],
    chunk_slots: int,
    decode: Callable[[Any], tuple[int, bytes | None]] = _as_is,
) -> TakenLevel:
    """The level from its stored chunks, in any order: `decode` makes each of `chunks` a (number,
    bytes) pair, None for a chunk of zeros (they are such pairs already by default), on every
    worker thread of a compiled backend (a chunk never given stays zeros; what `decode` raises is
    the caller's)."""
    b = tables.backend
    sets = tables.level(depth)
    slots = level_slots(tables.cells, depth)
    level = Level(sets, b.u8(sets.size))

    def take(batch: list[T]) -> tuple[list[int], int]:
        decoded = [decoded for decoded in map(decode, batch) if decoded[1] is not None]
        data = b.u8(len(decoded) * chunk_slots)
        for e, (_, part) in enumerate(decoded):
            assert part is not None
            data[e * chunk_slots : e * chunk_slots + len(part)] = _array(b, part)
        kept = b.i64(DAMAGE_KEPT)
        count = tables.run.take_chunks(
            sets.arrays,
            len(decoded),
            b.i64_of([number for number, _ in decoded]),
            data,
            chunk_slots,
            slots,
            level.codes,
            kept,
            0,
        )
        return [int(kept[i]) for i in range(min(count, DAMAGE_KEPT))], count

    slots_damaged: list[int] = []
    found = 0
    for kept, count in _batched(b, chunks, take):
        slots_damaged += kept
        found += count

    def fill(worker: int, start: int, stop: int) -> tuple[list[int], int]:
        kept = b.i64(DAMAGE_KEPT)
        count = tables.run.fill_images(
            tables.arrays,
            sets.arrays,
            start,
            stop,
            level.codes,
            kept,
            0,
            b.i64(SMALL_SIZE),
            b.u32(TABLE_SIZE),
        )
        return [int(kept[i]) for i in range(min(count, DAMAGE_KEPT))], count

    for kept, count in b.spread(sets.canonical, fill, grain=range_grain(sets)):
        slots_damaged += kept
        found += count
    return TakenLevel(level, sorted(slots_damaged)[:DAMAGE_KEPT], found)


def _batched(backend: Backend, items: Iterable[T], work: Callable[[list[T]], R]) -> Iterator[R]:
    """work(batch) over `items` in batches of TAKE_BATCH, on every worker thread of a compiled
    backend, a few batches in flight at a time; the results as they finish, in order."""
    workers = backend.workers if backend.compiled else 1
    batches = _batches(items, TAKE_BATCH)
    if workers == 1:
        yield from map(work, batches)
        return
    from concurrent.futures import Future, ThreadPoolExecutor

    with ThreadPoolExecutor(workers) as pool:
        pending: deque[Future[R]] = deque()
        for batch in batches:
            pending.append(pool.submit(work, batch))
            if len(pending) >= 2 * workers:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


def _batches(items: Iterable[T], size: int) -> Iterator[list[T]]:
    iterator = iter(items)
    while batch := list(islice(iterator, size)):
        yield batch


def _array(backend: object, data: bytes | memoryview) -> Ints:
    """Chunk bytes as the kernels take them (numpy reads the buffer in place)."""
    from ttt_db.ranked.backend import Backend

    assert isinstance(backend, Backend)
    if backend.compiled:
        import numpy as np

        return np.frombuffer(data, np.uint8)
    return data
