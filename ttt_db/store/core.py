"""Reading the ranked core: a board's value and remoteness from the code byte of its class's
representative slot (`ttt_db.ranked.slots`, `ttt_db.ranked.codes`), one compressed chunk at a
time, and its class's extras (`ttt_db.store.extras`); whole levels for the level walker
(`stored_level`, `ttt_db.ranked.walk`), over which the named lists of boards, the best-moves table
and every position are derived.

Each chunk read is checked against its checksum, its hash (`ttt_db.store.digest`: the page of its
level's hashes, held to the meta) and its size before it is decompressed and kept in a small
cache, so a lookup reads one chunk and a warm handle reads none.
"""

from __future__ import annotations

import os
import threading
from array import array
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import accumulate
from math import factorial
from typing import TYPE_CHECKING, Any, Final, Literal, NamedTuple, TypeVar

from ttt_db.errors import DatabaseDamagedError, NotStoredError
from ttt_db.game.definition import Game
from ttt_db.game.rules import VALUES, Value
from ttt_db.position import Playout, Position
from ttt_db.ranked.codes import move_of_worth, value_of_code
from ttt_db.ranked.slots import level_slots, representative
from ttt_db.store.chunk_cache import ChunkCache
from ttt_db.store.chunks import CHUNK_SLOTS, chunk_checksum, core_codes, decompressed, level_chunks
from ttt_db.store.digest import HASH_BYTES, HASH_PAGE, HASHES_KEY, chunk_hash, extras_checksum, page_hash
from ttt_db.store.extras import EXTRAS_FIELDS, decode_extras, extras_refused
from ttt_db.store.reader import Reader
from ttt_db.store.tables import CHUNK_HASHES, CORE, EXTRAS, META

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np
    from numpy.typing import NDArray

    from ttt_db.ranked.blocks import Block
    from ttt_db.ranked.tables import RankedTables
    from ttt_db.ranked.walk import Report, Step, StoredLevel

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)
CACHED_CHUNKS: Final = 8192
"""Decompressed chunks a handle keeps (at most CHUNK_SLOTS bytes each: a bounded amount, enough that
a batch of random boards of a 20-cell game, whose families reach most of its chunks, reads each of
them once, and a server's lookups find most of their children's chunks already read)."""
EMPTY_COUNTED: Final = 1 << 10
"""Slots of a chunk whose empty slots (code 0) are counted together and kept beside its extras
(`_ExtrasChunk`): a class's place among them is found by counting fewer slots than this."""
PROBED_BOARDS: Final = 1 << 16
"""Boards whose values a core reader remembers (`CoreReader.value_of`)."""
PREFETCHED_FROM: Final = 4
"""Chunks of one level wanted at once from which `CoreReader.prefetch` reads them together."""
NODE_LISTS: Final = ("all", "canonical", "playing", "playing_canonical", "decision", "decision_canonical")
"""The named lists of boards the core derives (`CoreReader.node_list_keys`)."""
_LIST_KINDS: Final = {"all": 0, "playing": 1, "decision": 2}


_POOLS: dict[int, ThreadPoolExecutor] = {}
_POOLS_LOCK = threading.Lock()


def reader_threads() -> ThreadPoolExecutor:
    """Threads for a reader's work beside its caller's (checking and decompressing prefetched
    chunks, ranking a batch's next boards: `ttt_db.store.lookups`): one per core, kept for the
    process (a forked child, which has none of its parent's threads, makes its own)."""
    from concurrent.futures import ThreadPoolExecutor  # loaded where chunks are prefetched

    with _POOLS_LOCK:
        pool = _POOLS.get(os.getpid())
        if pool is None:
            pool = _POOLS[os.getpid()] = ThreadPoolExecutor(os.cpu_count() or 1, thread_name_prefix="ttt-db-chunks")
        return pool


def list_kind(name: str) -> tuple[int, bool]:
    """A named list's kind of board (`ttt_db.ranked.blocks.Block.select`) and whether it holds
    only canonical boards."""
    return _LIST_KINDS[name.removesuffix("canonical").rstrip("_") or "all"], name.endswith("canonical")


def moves_of_worths(worths: Sequence[int]) -> list[tuple[int, Value, int]]:
    """A board's moves from their worths by cell (`ttt_db.ranked.kernels.moves.slot_moves`; 0 at a taken
    cell): each legal cell with its value for the mover and the plies left after it."""
    moves = []
    for cell, worth in enumerate(worths):
        if worth:
            rank, after = move_of_worth(worth)
            moves.append((cell, VALUES[rank], after))
    return moves


class _ExtrasChunk(NamedTuple):
    """A chunk of the extras (EXTRAS_FIELDS integers per class, in slot order), with the empty
    slots of its core chunk before each block of EMPTY_COUNTED slots (the chunk's total last)."""

    values: array[int]
    empty_before: list[int]


@dataclass(frozen=True, slots=True)
class ClassMoves:
    """What a block knows of one class, kept without the block: its canonical board's key, the
    symmetry from its representative there, its size, its code and its representative's moves'
    worths by cell (0 at a taken cell)."""

    key: int
    transform: int
    size: int
    code: int
    worths: bytes

    def position(self, game: Game) -> Position:
        """The class's position at its canonical board, its moves carried there."""
        own = value_of_code(self.code)
        if own is None:
            raise DatabaseDamagedError("a code no build writes", f"board {game.board_of(self.key)!r}")
        inverse = game.inverses[self.transform]
        moves = (
            []
            if own[1] == 0
            else [(inverse[cell], value, after) for cell, value, after in moves_of_worths(self.worths)]
        )
        board = game.board_of(self.key)
        return Position.from_values(board, game, own, sorted(moves), canonical=board, orbit=self.size)


def class_moves(tables: RankedTables, block: Block, where: list[int]) -> list[ClassMoves]:
    """The classes whose representatives are at `where` in a block of canonical sets (with its
    moves, but at the full board)."""
    from ttt_db.ranked.backend import as_list

    n = tables.cells
    keys, transforms, sizes = block.orbits(where)
    worths = block.moves.worths if block.moves is not None else None
    codes = as_list(block.codes)
    return [
        ClassMoves(key, transform, size, codes[j], bytes(worths[j * n : (j + 1) * n]) if worths is not None else b"")
        for j, key, transform, size in zip(where, keys, transforms, sizes, strict=True)
    ]


def class_positions(tables: RankedTables, block: Block, where: list[int]) -> list[Position]:
    """The positions of the classes at `where` (`class_moves`), each told at its canonical board."""
    return [found.position(tables.game) for found in class_moves(tables, block, where)]


class CoreReader:
    """The core of one database; safe to share between threads."""

    def __init__(self, reader: Reader, game: Game, meta: Callable[[], Mapping[str, Any]]) -> None:
        """`meta`: the database's checked meta entries (the pages' hashes are one)."""
        self.reader = reader
        self.game = game
        self._meta = meta
        self._pages: OrderedDict[tuple[str, int, int], bytes] = OrderedDict()
        self._held = ChunkCache(game.cells, CACHED_CHUNKS)
        self._extras: OrderedDict[tuple[int, int], _ExtrasChunk] = OrderedDict()
        self._refused: dict[tuple[str, int, int], DatabaseDamagedError] = {}
        self._probed: dict[str, tuple[Value, int]] = {}
        self._lock = threading.Lock()

    @cached_property
    def tables(self) -> RankedTables:
        """The game's tables for the level kernels (built on the first walk)."""
        from ttt_db.ranked.tables import RankedTables

        return RankedTables(self.game)

    def chunk(self, depth: int, number: int) -> bytes:
        """Level `depth`'s chunk `number`, decompressed; DatabaseDamagedError when it is missing,
        fails its checksum or decompresses to another size than its place in the level."""
        size = self._chunk_size(depth, number)
        return self._in_chunk(depth, number, lambda start: self._held.memory[start : start + size])

    def code(self, depth: int, slot: int) -> int:
        """The code at `slot` of level `depth` (`chunk`'s refusals)."""
        number, offset = divmod(slot, CHUNK_SLOTS)
        return self._in_chunk(depth, number, lambda start: self._held.memory[start + offset])

    def _in_chunk(self, depth: int, number: int, read: Callable[[int], T]) -> T:
        """`read` of where the chunk starts in the cache's memory, the chunk read first if it is
        not held; under the lock, so that its place is not reused meanwhile."""
        index = self._held.index(depth, number)
        with self._lock:
            place = self._held.find(index)
            if place is not None:
                return read(place * CHUNK_SLOTS)
        data = self._read(depth, number)
        with self._lock:
            return read(self._held.put(index, data) * CHUNK_SLOTS)

    def codes_at(self, depths: NDArray[np.int64], slots: NDArray[np.int64]) -> NDArray[np.uint8]:
        """The code at each (depth, slot), as `code` gives it, for many slots of many chunks: the
        wanted slots sorted by chunk once (a radix sort, on the chunks' numbers across levels), then
        the codes taken from the cache in one gather (`_gathered`), for as many chunks at a time as
        it holds half of."""
        import numpy as np

        firsts = np.asarray(self._held.firsts, np.int64)  # each level's first chunk's index, the count last
        keys = firsts[depths] + (slots >> (CHUNK_SLOTS.bit_length() - 1))  # CHUNK_SLOTS is a power of two
        narrow = np.uint16 if firsts[-1] <= 1 << 16 else np.uint32 if firsts[-1] <= 1 << 32 else np.int64
        order = np.argsort(keys.astype(narrow), kind="stable")
        keys, offsets = keys[order], slots[order] & (CHUNK_SLOTS - 1)
        starts = np.flatnonzero(np.diff(keys, prepend=-1))
        indices = keys[starts].tolist()  # each chunk wanted, once
        runs = np.diff(np.append(starts, len(keys)))
        found = np.empty(len(slots), np.uint8)
        memory = np.frombuffer(self._held.memory, np.uint8)
        portion = max(1, self._held.places // 2)
        for first in range(0, len(starts), portion):
            part = slice(first, first + portion)
            taken = slice(int(starts[first]), int(starts[first] + runs[part].sum()))

            def gather(places: NDArray[np.int64], part: slice = part, taken: slice = taken) -> None:
                found[taken] = memory[np.repeat(places * CHUNK_SLOTS, runs[part]) + offsets[taken]]

            self._gathered(indices[part], gather)
        codes = np.empty(len(slots), np.uint8)
        codes[order] = found
        return codes

    def _gathered(self, wanted: list[int], gather: Callable[[NDArray[np.int64]], None]) -> None:
        """`gather` of the places of the `wanted` chunks (`ChunkCache.index`), under the lock, once
        every one is held at once: those that are not are read first, a level's together
        (`prefetch`)."""
        import numpy as np

        while True:
            with self._lock:
                places = self._held.find_all(wanted)
                if None not in places:
                    gather(np.asarray(places, np.int64))
                    return
            missing: dict[int, list[int]] = {}
            for index, place in zip(wanted, places, strict=True):
                if place is None:
                    depth, number = self._held.chunk_of(index)
                    missing.setdefault(depth, []).append(number)
            for depth, numbers in missing.items():
                self.prefetch(depth, numbers)
                for number in numbers:  # those prefetch left (few, or refused: read alone, refused by name)
                    self._in_chunk(depth, number, lambda _: None)

    def prefetch(self, depth: int, numbers: Iterable[int]) -> None:
        """Level `depth`'s chunks `numbers` not yet read, read in one query and checked and
        decompressed on every core (hashing and zstandard release the GIL) into the cache `chunk`
        reads; a chunk that cannot be read is left for `chunk` to refuse by name."""
        with self._lock:
            missing = sorted({n for n in numbers if self._held.index(depth, n) not in self._held})
        missing = [n for n in missing if ("core", depth, n) not in self._refused]
        if len(missing) < PREFETCHED_FROM:
            return
        rows = self.reader.rows(
            f"SELECT chunk, slots, codes, checksum FROM {CORE} WHERE depth = :depth "
            f"AND chunk IN ({', '.join(str(int(n)) for n in missing)})",
            {"depth": depth},
        )

        def load(row: Any) -> tuple[int, bytes | None]:
            size = self._chunk_size(depth, row.chunk)
            try:
                data = self._checked("core", depth, row.chunk, size, size, row.slots, row.codes, row.checksum)
            except DatabaseDamagedError:
                return row.chunk, None  # `chunk` reads it again, and refuses it
            return row.chunk, bytes(size) if data is None else data

        for number, data in reader_threads().map(load, rows):
            if data is not None:
                with self._lock:
                    self._held.put(self._held.index(depth, number), data)

    def _cached(self, store: OrderedDict[K, T], key: K, load: Callable[[], T]) -> T:
        with self._lock:
            found = store.get(key)
            if found is not None:
                store.move_to_end(key)
                return found
        loaded = load()
        with self._lock:
            store[key] = loaded
            while len(store) > CACHED_CHUNKS:
                store.popitem(last=False)
        return loaded

    def _chunk_size(self, depth: int, number: int) -> int:
        return min(CHUNK_SLOTS, level_slots(self.game.cells, depth) - number * CHUNK_SLOTS)

    def _read(self, depth: int, number: int) -> bytes:
        slots = self._chunk_size(depth, number)
        return self._fetch("core", depth, number, slots, slots)

    def _fetch(self, part: str, depth: int, number: int, count: int, size: int) -> bytes:
        """One chunk of the core (`count` slots) or of the extras (`count` classes), `size` bytes
        decompressed; DatabaseDamagedError when it is missing, fails its checksum, holds another
        count or decompresses to another size. A refusal is kept: a damaged chunk is read once."""
        refused = self._refused.get((part, depth, number))
        if refused is not None:
            raise refused
        try:
            return self._fetch_once(part, depth, number, count, size)
        except DatabaseDamagedError as error:
            self._refused[(part, depth, number)] = error
            raise

    def _fetch_once(self, part: str, depth: int, number: int, count: int, size: int) -> bytes:
        table, column, unit = (CORE, "codes", "slots") if part == "core" else (EXTRAS, "extras", "classes")
        rows = self.reader.rows(
            f"SELECT {unit}, {column}, checksum FROM {table} WHERE depth = :depth AND chunk = :chunk",
            {"depth": depth, "chunk": number},
        )
        if not rows:
            raise DatabaseDamagedError(
                f"a chunk of the {part} is missing", f"table {table}, level {depth} chunk {number}"
            )
        stored, blob, check = rows[0]
        data = self._checked(part, depth, number, count, size, stored, blob, check)
        return bytes(size) if data is None else data

    def _checked(
        self, part: str, depth: int, number: int, count: int, size: int, stored: object, blob: object, check: object
    ) -> bytes | None:
        """A stored chunk's bytes, decompressed (None for the core's chunk of zeros); DatabaseDamagedError
        when it fails its checksum or its hash, holds another count or decompresses to another size."""
        table, unit = (CORE, "slots") if part == "core" else (EXTRAS, "classes")
        where = f"table {table}, level {depth} chunk {number}"
        if not isinstance(blob, bytes):
            raise DatabaseDamagedError(f"a chunk of the {part} does not match its checksum", where)
        row = (depth, number, stored, blob, check)
        as_written = chunk_hash(self.game.name, part, row) == self._listed_hash(part, depth, number)
        # a row as written has the checksum the build gave it; an extras chunk's is held to its core chunk's hash
        if (not as_written or part == "extras") and check != self._checksum(part, depth, number, blob):
            raise DatabaseDamagedError(f"a chunk of the {part} does not match its checksum", where)
        if stored != count:
            raise DatabaseDamagedError(f"a chunk of the {part} holds {stored!r} {unit}, not {count}", where)
        if not as_written:
            raise DatabaseDamagedError(f"a chunk of the {part} does not match its hash", where)
        try:
            return core_codes(blob, size) if part == "core" else decompressed(blob, size)
        except ValueError as refused:
            raise DatabaseDamagedError(f"a chunk of the {part} is refused: {refused}", where) from None

    def _checksum(self, part: str, depth: int, number: int, blob: bytes) -> int:
        if part == "core":
            return chunk_checksum(self.game.name, depth, number, blob)
        return extras_checksum(self.game.name, depth, number, blob, self._listed_hash("core", depth, number))

    def _listed_hash(self, part: str, depth: int, number: int) -> bytes:
        """The hash a chunk must have, from its page (`ttt_db.store.digest`)."""
        page, index = divmod(number, HASH_PAGE)
        hashes = self._cached(self._pages, (part, depth, page), lambda: self._page(part, depth, page))
        found = hashes[index * HASH_BYTES : (index + 1) * HASH_BYTES]
        if len(found) != HASH_BYTES:
            where = f"table {CHUNK_HASHES}, {part} level {depth} page {page}"
            raise DatabaseDamagedError(f"no hash for chunk {number}", where)
        return found

    def _page(self, part: str, depth: int, page: int) -> bytes:
        """A page of a level's chunk hashes, held to its hash in the meta."""
        try:
            expected = self._meta()[HASHES_KEY][part][depth][page]
        except (KeyError, IndexError, TypeError):
            raise DatabaseDamagedError(f"no hash of {part} level {depth} page {page}", f"table {META}") from None
        rows = self.reader.rows(
            f"SELECT hashes FROM {CHUNK_HASHES} WHERE part = :part AND depth = :depth AND page = :page",
            {"part": part, "depth": depth, "page": page},
        )
        hashes = rows[0].hashes if rows else None
        if not isinstance(hashes, bytes) or page_hash(part, depth, page, hashes) != expected:
            where = f"table {CHUNK_HASHES}, {part} level {depth} page {page}"
            raise DatabaseDamagedError("a page of chunk hashes is missing or does not match the meta", where)
        return hashes

    def value_of(self, board: str) -> tuple[Value, int]:
        """(value for the side to move, remoteness) of a reachable board (o first), from the code
        of its class's representative; DatabaseDamagedError when that slot holds none. The last
        PROBED_BOARDS boards' are remembered: a position's moves read its children and theirs,
        which its neighbours read again."""
        found = self._probed.get(board)
        if found is None:
            found = self._value_in_core(board)
            if len(self._probed) >= PROBED_BOARDS:
                self._probed.clear()
            self._probed[board] = found
        return found

    def _value_in_core(self, board: str) -> tuple[Value, int]:
        depth, slot, _ = representative(board, self.game)
        decoded = value_of_code(self.code(depth, slot))
        if decoded is None:
            raise DatabaseDamagedError(
                f"no value for {board!r} in the core", f"table {CORE}, level {depth} slot {slot}"
            )
        return decoded

    def chunk_count(self, depth: int) -> int:
        return level_chunks(self.game.cells, depth)

    def stored_level(self, tables: RankedTables, depth: int) -> StoredLevel:
        """A whole level as the walker takes it (`ttt_db.ranked.walk.LevelSource`): its chunks read
        in order past the cache, each checked; a chunk that is missing, extra or fails its checks is
        taken as zeros and named."""
        from ttt_db.ranked.layout import level_from_chunks
        from ttt_db.ranked.walk import StoredLevel

        expected = self.chunk_count(depth)
        unreadable: list[DatabaseDamagedError] = []

        def rows() -> Iterator[tuple[Any, ...]]:
            seen = 0
            query = f"SELECT chunk, slots, codes, checksum FROM {CORE} WHERE depth = :depth ORDER BY chunk"
            for row in self.reader.stream(query, {"depth": depth}):
                number = row[0]
                if not isinstance(number, int) or not 0 <= number < expected:
                    where = f"table {CORE}, level {depth} chunk {number}"
                    unreadable.append(DatabaseDamagedError(f"a chunk the level has no place for ({number!r})", where))
                    continue
                unreadable.extend(self._missing(depth, missing) for missing in range(seen, number))
                seen = number + 1
                yield row
            unreadable.extend(self._missing(depth, missing) for missing in range(seen, expected))

        def decode(row: tuple[Any, ...]) -> tuple[int, bytes | None]:
            number, stored, blob, check = row
            size = self._chunk_size(depth, number)
            try:
                return number, self._checked("core", depth, number, size, size, stored, blob, check)
            except DatabaseDamagedError as error:
                unreadable.append(error)  # list.append is atomic: decode runs on several threads
                return number, None

        taken = level_from_chunks(tables, depth, rows(), CHUNK_SLOTS, decode)
        unreadable.sort(key=lambda error: error.where)
        return StoredLevel(taken, unreadable)

    def _missing(self, depth: int, number: int) -> DatabaseDamagedError:
        return DatabaseDamagedError("a chunk of the core is missing", f"table {CORE}, level {depth} chunk {number}")

    def walk(
        self,
        direction: Literal["forward", "backward"] = "forward",
        report: Report | None = None,
        depths: range | None = None,
        *,
        ahead: bool = False,
        tally: bool = False,
        tables: RankedTables | None = None,
    ) -> Iterator[Step]:
        """The core's levels through the level walker (`ttt_db.ranked.walk.walk`), each held to its
        children (`ahead`: and its children to theirs before the step comes; `tally`: each with its
        `LevelTally`), on `tables` (another backend's) or the core's own; the first damage raises
        DatabaseDamagedError unless a `report` takes it."""
        from ttt_db.ranked.walk import walk

        on = tables or self.tables
        if report is None:
            return walk(on, self, direction, depths=depths, ahead=ahead, tally=tally)
        return walk(on, self, direction, report, depths, ahead=ahead, tally=tally)

    def extras(self, depth: int, slot: int) -> tuple[int, int, int, int]:
        """(o wins, x wins, draws, paths) of the class whose representative is `slot` of level
        `depth` (`ttt_db.store.extras`); DatabaseDamagedError when they cannot be right."""
        return self.extras_of(depth, [slot])[0]

    def extras_of(self, depth: int, slots: Sequence[int]) -> list[tuple[int, int, int, int]]:
        """`extras` of the classes whose representatives are `slots` of level `depth`, in order;
        many of them: consecutive slots of one chunk find its extras once."""
        ways = factorial(self.game.cells - depth)
        found: list[tuple[int, int, int, int]] = []
        reading, held, codes = -1, _ExtrasChunk(array("q"), []), b""
        for slot in slots:
            number, offset = divmod(slot, CHUNK_SLOTS)
            if number != reading:
                reading, held, codes = number, self._extras_chunk(depth, number), self.chunk(depth, number)
            block = offset // EMPTY_COUNTED
            empty = held.empty_before[block] + codes.count(0, block * EMPTY_COUNTED, offset)
            ordinal = offset - empty  # the classes before it: its place among the chunk's extras
            o_wins, x_wins, draws, paths = held.values[4 * ordinal : 4 * ordinal + 4]
            if extras_refused(o_wins, x_wins, draws, paths, ways):
                where = f"table {EXTRAS}, level {depth} chunk {number}"
                raise DatabaseDamagedError(
                    f"odds {[o_wins, x_wins, draws]} and paths {paths} for slot {slot}: not {ways:,} move orders", where
                )
            found.append((o_wins, x_wins, draws, paths))
        return found

    def extras_level_chunk(self, depth: int, number: int, classes: int) -> list[int]:
        """A chunk of the extras (EXTRAS_FIELDS integers per class), read past the cache, for
        `verify`; DatabaseDamagedError when it cannot be right."""
        with self._lock:
            self._extras.pop((depth, number), None)
        return list(self._extras_values(depth, number, classes))

    def _extras_chunk(self, depth: int, number: int) -> _ExtrasChunk:
        """A chunk of the extras and the empty slots of the core's chunk before each of its blocks
        of EMPTY_COUNTED slots, kept."""

        def load() -> _ExtrasChunk:
            codes = self.chunk(depth, number)
            starts = range(0, len(codes), EMPTY_COUNTED)
            empty_before = [0, *accumulate(codes.count(0, start, start + EMPTY_COUNTED) for start in starts)]
            return _ExtrasChunk(self._extras_values(depth, number, len(codes) - empty_before[-1]), empty_before)

        return self._cached(self._extras, (depth, number), load)

    def _extras_values(self, depth: int, number: int, classes: int) -> array[int]:
        size = 8 * len(EXTRAS_FIELDS) * classes
        return decode_extras(self._fetch("extras", depth, number, classes, size))

    def node_list_keys(self, name: str) -> list[int]:
        """The boards of a named list (`NODE_LISTS`) as base-3 keys in (depth, key) order, derived
        from the core level by level: every position, those in play, the decision positions (some
        move loses value), each alone or only the canonical boards (`..._canonical`)."""
        from ttt_db.ranked.blocks import level_keys

        if name not in NODE_LISTS:
            raise NotStoredError(f"no node list is called {name!r}: there are {', '.join(NODE_LISTS)}")
        kind, canonical = list_kind(name)
        keys: list[int] = []
        for step in self.walk():
            keys += level_keys(self.tables, step, kind, canonical=canonical)
        return keys

    def best_moves_by_board(self, *, shortest: bool) -> dict[str, tuple[int, ...]]:
        """The best (`shortest`: fastest) moves of every canonical board in play, derived from the
        core level by level."""
        from ttt_db.ranked.blocks import blocks

        game = self.game
        table: dict[str, tuple[int, ...]] = {}
        for step in self.walk(depths=range(game.cells)):
            for block in blocks(self.tables, step, canonical=True, moves=True):
                where = block.select(1)
                if not where:
                    continue
                keys, chosen, _ = block.orbits(where)
                assert block.moves is not None
                masks = block.moves.fast_mask if shortest else block.moves.best_mask
                for j, key, transform in zip(where, keys, chosen, strict=True):
                    mask = int(masks[j])
                    inverse = game.inverses[transform]
                    table[game.board_of(key)] = tuple(
                        sorted(inverse[cell] for cell in range(game.cells) if mask >> cell & 1)
                    )
        return table

    def positions(self, *, extras: bool, depths: range | None = None) -> Iterator[Position]:
        """Every reachable board's position (o first; of the levels `depths`, all by default), in
        (depth, slot) order, a block of boards at a time: each move's value from the codes of the
        next level; with `extras`, each board's random-play odds and paths."""
        from ttt_db.ranked.backend import as_list
        from ttt_db.ranked.blocks import blocks

        game = self.game
        n = game.cells
        for step in self.walk(depths=depths, ahead=True):  # no move's value from a level not held
            ways = factorial(n - step.depth)
            for block in blocks(self.tables, step, canonical=False, moves=True):
                where = block.select(0)
                if not where:
                    continue
                least, _, sizes = block.orbits(where)
                classes = self._class_slots(block) if extras else None
                kept = None if classes is None else self.extras_of(step.depth, [classes[j] for j in where])
                worths = as_list(block.moves.worths) if block.moves is not None else None
                codes = as_list(block.codes)
                for i, (j, board) in enumerate(zip(where, block.boards(where), strict=True)):
                    own = value_of_code(codes[j])
                    if own is None:
                        raise DatabaseDamagedError("a code no build writes", f"table {CORE}, level {step.depth}")
                    analyses = [] if worths is None or own[1] == 0 else moves_of_worths(worths[j * n : (j + 1) * n])
                    playout, paths = None, None
                    if kept is not None:
                        o_wins, x_wins, draws, paths = kept[i]
                        playout = Playout(o_wins, x_wins, draws, ways)
                    yield Position.from_values(
                        board,
                        game,
                        own,
                        analyses,
                        canonical=game.board_of(least[i]),
                        orbit=sizes[i],
                        playout=playout,
                        paths=paths,
                    )

    def _class_slots(self, block: Any) -> list[int]:
        """The representative slot of each board of a block of every set."""
        from ttt_db.ranked.backend import as_list

        return as_list(block.class_slots())
