"""Many boards' positions at once, in arrays: what `Position.from_core` does for one board (its
code, its children's, each child held to its own children by the retrograde rule), for a batch.

The boards, their children and their grandchildren are made and ranked in one kernel call
(`ttt_db.ranked.kernels.family.family_slots`), their codes gathered a chunk at a time, and every child in
play held to the best of its own children (`ttt_db.ranked.codes`: the rule the level step and the
walker use), a finished child to its end. A board whose codes cannot all be right is left to the
one-board path (None here), which says what is wrong in its own words.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from math import factorial
from typing import TYPE_CHECKING, Final, NamedTuple, TypeVar

from ttt_db.game.board import has_line
from ttt_db.game.rules import STATUSES, Status, Value, opposite_value
from ttt_db.game.symmetry import canonical_and_orbit_many
from ttt_db.position import Playout, Position, document_json
from ttt_db.ranked.codes import CODE_OF_WORTH, DRAW_NOW, LOSS_NOW, WORTH, value_of_code
from ttt_db.ranked.family import family_slots
from ttt_db.store.chunks import CHUNK_SLOTS, level_chunks

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from ttt_db.store.core import CoreReader

DECODED: Final = [value_of_code(code) for code in range(256)]
MOVER_VALUES: Final = [None if decoded is None else opposite_value(decoded[0]) for decoded in DECODED]
"""A child's code as the value of the move to it, for the mover."""
AFTERS: Final = [None if decoded is None else decoded[1] for decoded in DECODED]
"""A child's code as the plies left after the move to it."""


class Derived(NamedTuple):
    """What `Position.from_values` takes, for one board derived in arrays."""

    board: str
    own: tuple[Value, int]
    moves: list[tuple[int, Value, int]]
    canonical: str
    orbit: int
    status: Status
    playout: Playout | None
    paths: int | None


def positions_in_arrays(core: CoreReader, boards: Sequence[str], *, extras: bool) -> list[Position | None]:
    """The position of each board (o first, in the game's plain cells), derived from the core as
    `Position.from_core` derives it, with its class's odds and paths where `extras`; None for a
    board whose own, children's or grandchildren's codes do not hold (the one-board lookup says
    why) or that is not one the core holds."""
    return _made_in_arrays(core, boards, extras, Position.from_values)


def documents_in_arrays(core: CoreReader, boards: Sequence[str], *, extras: bool) -> list[bytes | None]:
    """The `best-moves --json` document of each board (o first) as compact JSON: the bytes of
    `positions_in_arrays`' positions' documents (`ttt_db.position.document_json`), None where
    it gives None."""
    return _made_in_arrays(core, boards, extras, document_json)


T = TypeVar("T")


def _made_in_arrays(core: CoreReader, boards: Sequence[str], extras: bool, make: Callable[..., T]) -> list[T | None]:
    """`make` (`Position.from_values` or `document_json`, which take the same) of each board's
    derived parts; None where there are none."""
    game = core.game
    return [
        None
        if found is None
        else make(
            found.board,
            game,
            found.own,
            found.moves,
            canonical=found.canonical,
            orbit=found.orbit,
            board_status=found.status,
            playout=found.playout,
            paths=found.paths,
        )
        for found in derived_in_arrays(core, boards, extras=extras)
    ]


def derived_in_arrays(core: CoreReader, boards: Sequence[str], *, extras: bool) -> list[Derived | None]:
    """What each board's position is made of (`positions_in_arrays`); None where it gives None."""
    import numpy as np

    game, tables = core.game, core.tables
    n, count = game.cells, len(boards)
    if count == 0:
        return []
    chars = np.frombuffer("".join(boards).encode("ascii"), np.uint8).reshape(count, n)
    bits = np.left_shift(np.int64(1), np.arange(n, dtype=np.int64))
    taken = chars != ord(".")
    occupied = taken.astype(np.int64) @ bits
    o_cells = (chars == ord("o")).astype(np.int64) @ bits
    depth = taken.sum(axis=1)
    lines = np.asarray(game.line_masks, np.int64)
    o_won, x_won = has_line(o_cells, lines), has_line(occupied ^ o_cells, lines)
    finished = o_won | x_won | (depth == n)
    statuses = [STATUSES[i] for i in np.where(o_won, 1, np.where(x_won, 2, np.where(finished, 3, 0))).tolist()]
    own_slot, child_slot, ended, grand_slot = family_slots(tables, count, occupied, o_cells)
    free, further = child_slot >= 0, grand_slot >= 0  # the moves of each board in play; the replies
    replies = further.sum(axis=2)  # by board and move: none for a move that ends the game
    wanted = (  # every code the boards need, read together: each chunk decompressed once
        (depth, own_slot),
        (np.repeat(depth + 1, free.sum(axis=1)), child_slot[free]),
        (np.repeat(depth + 2, replies.sum(axis=1)), grand_slot[further]),
    )
    read = _codes(core, np.concatenate([at for at, _ in wanted]), np.concatenate([slots for _, slots in wanted]))
    own, child_codes, grand_codes = np.split(read, np.cumsum([len(slots) for _, slots in wanted])[:2])
    child = np.zeros((count, n), np.uint8)
    child[free] = child_codes
    answered = replies > 0  # each such move's replies lie together in grand_codes, in order
    best = np.zeros((count, n), np.uint8)
    if len(grand_codes):
        firsts = np.concatenate([[0], np.cumsum(replies[answered])[:-1]])
        best[answered] = np.maximum.reduceat(np.frombuffer(WORTH, np.uint8)[grand_codes], firsts)
    ruled = np.frombuffer(CODE_OF_WORTH, np.uint8)[best]
    ruled = np.where(ended == 1, LOSS_NOW, np.where(ended == 2, DRAW_NOW, ruled))
    unwritten = np.bincount(np.repeat(np.arange(count), replies.sum(axis=1))[grand_codes == 0], minlength=count)
    held = (own != 0) & (((child == ruled) & (child != 0)) | ~free).all(axis=1) & (unwritten == 0)

    canonical, orbits = canonical_and_orbit_many(boards, game)
    depths = depth.tolist()
    usable = held & np.asarray([decoded is not None for decoded in DECODED])[own]
    kept = _extras(core, depth, own_slot, usable) if extras else None
    found: list[Derived | None] = []
    _, move_cells = free.nonzero()  # board by board, each board's moves in cell order
    every_move = list(
        zip(
            move_cells.tolist(),
            np.asarray(MOVER_VALUES, object)[child_codes].tolist(),
            np.asarray(AFTERS, object)[child_codes].tolist(),
            strict=True,
        )
    )
    ends = np.cumsum(free.sum(axis=1)).tolist()
    decoded_codes = [DECODED[code] for code in own.tolist()]
    for i, (board, decoded, use) in enumerate(zip(boards, decoded_codes, usable.tolist(), strict=True)):
        if not use or decoded is None:
            found.append(None)
            continue
        moves = every_move[ends[i - 1] if i else 0 : ends[i]]  # held: every child's code is one a build writes
        playout = paths = None
        odds = None if kept is None else kept[i]
        if odds is not None:
            o_wins, x_wins, draws, paths = odds
            playout = Playout(o_wins, x_wins, draws, factorial(n - depths[i]))
        found.append(Derived(board, decoded, moves, canonical[i], orbits[i], statuses[i], playout, paths))
    return found


def _extras(
    core: CoreReader, depth: NDArray[np.int64], slots: NDArray[np.int64], usable: NDArray[np.bool_]
) -> list[tuple[int, int, int, int] | None]:
    """The odds and paths of each held board's class (`CoreReader.extras_of`), a level at a time in
    slot order (each chunk read once); None for the others (`usable` false)."""
    import numpy as np

    kept: list[tuple[int, int, int, int] | None] = [None] * len(slots)
    order = np.lexsort((slots, depth))
    order = order[usable[order]]
    for level in np.unique(depth[order]).tolist():
        at = order[depth[order] == level]
        for i, found in zip(at.tolist(), core.extras_of(level, slots[at].tolist()), strict=True):
            kept[i] = found
    return kept


def _codes(core: CoreReader, depths: NDArray[np.int64], slots: NDArray[np.int64]) -> NDArray[np.uint8]:
    """The stored code at each (depth, slot), each chunk read once (`CoreReader.chunk`: held to its
    hash): the wanted slots sorted by chunk once (a radix sort, on the chunks' numbers across
    levels), then each chunk's codes taken together."""
    import numpy as np

    firsts = _first_chunks(core.game.cells)  # each level's first chunk, numbered across the levels
    keys = firsts[depths] + (slots >> (CHUNK_SLOTS.bit_length() - 1))  # CHUNK_SLOTS is a power of two
    narrow = np.uint16 if firsts[-1] <= 1 << 16 else np.uint32 if firsts[-1] <= 1 << 32 else np.int64
    order = np.argsort(keys.astype(narrow), kind="stable")
    keys, offsets = keys[order], slots[order] & (CHUNK_SLOTS - 1)
    starts = np.flatnonzero(np.diff(keys, prepend=-1))
    levels = np.searchsorted(firsts, keys[starts], side="right") - 1
    numbers = keys[starts] - firsts[levels]
    for depth in np.unique(levels).tolist():
        core.prefetch(depth, numbers[levels == depth].tolist())
    found = np.empty(len(slots), np.uint8)
    stops = [*starts[1:].tolist(), len(keys)]
    for start, stop, depth, number in zip(starts.tolist(), stops, levels.tolist(), numbers.tolist(), strict=True):
        found[start:stop] = np.frombuffer(core.chunk(depth, number), np.uint8)[offsets[start:stop]]
    codes = np.empty(len(slots), np.uint8)
    codes[order] = found
    return codes


@cache
def _first_chunks(cells: int) -> NDArray[np.int64]:
    """Each level's first chunk numbered across the levels (level 0's is 0), and their total last."""
    import numpy as np

    counts = [level_chunks(cells, depth) for depth in range(cells + 1)]
    return np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
