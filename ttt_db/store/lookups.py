"""Many boards' positions at once, in arrays: what `Position.from_core` does for one board (its
code, its children's, each child held to its own children by the retrograde rule), for a batch.

The boards, their children and their grandchildren are made and ranked in one kernel call
(`ttt_db.ranked.family.family_slots`), their codes gathered together (`CoreReader.codes_at`), every
child in play held to the best of its own children (`ttt_db.ranked.codes`: the rule the level step
and the walker use), a finished child to its end, and each board in play to its moves, whose best
and fastest are taken in arrays (`ttt_db.ranked.family.best_and_fastest`). A board whose codes
cannot all be right is left to the one-board path (None here), which says what is wrong in its own
words.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from math import factorial
from typing import TYPE_CHECKING, Final, NamedTuple, TypeVar

from ttt_db.game.board import has_line
from ttt_db.game.rules import STATUSES, Status, Value, opposite_value
from ttt_db.game.symmetry import canonical_and_orbit_many
from ttt_db.position import Playout, Position, document_json
from ttt_db.ranked.codes import CODE_OF_WORTH, DRAW_NOW, LOSS_NOW, WORTH, value_of_code
from ttt_db.ranked.family import best_and_fastest, family_slots
from ttt_db.store.core import reader_threads

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
    kinds: tuple[tuple[int, ...], tuple[int, ...]] | None
    """The best moves and the fastest of them, held to `own` (None: left to `make`)."""


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
            kinds=found.kinds,
        )
        for found in derived_in_arrays(core, boards, extras=extras)
    ]


class _Family(NamedTuple):
    """A part of a batch parsed and ranked (`_family`): each board's depth, status, slot, its
    moves' slots, how each move ends the game, and its replies' slots (`family_slots`)."""

    depth: NDArray[np.int64]
    statuses: list[Status]
    own_slot: NDArray[np.int64]
    child_slot: NDArray[np.int64]
    ended: NDArray[np.uint8]
    grand_slot: NDArray[np.int64]


OVERLAPPED_BOARDS: Final = 2048
"""Boards of a batch derived at a time: the next part is ranked on a thread of the reader's
(`reader_threads`: the kernel runs without the GIL) while this part's codes and positions are made."""


def derived_in_arrays(core: CoreReader, boards: Sequence[str], *, extras: bool) -> list[Derived | None]:
    """What each board's position is made of (`positions_in_arrays`); None where it gives None."""
    if not boards:
        return []
    if len(boards) <= OVERLAPPED_BOARDS:
        return _derived(core, boards, _family(core, boards, spread=True), extras)
    parts = [boards[start : start + OVERLAPPED_BOARDS] for start in range(0, len(boards), OVERLAPPED_BOARDS)]
    ahead = reader_threads()
    coming = ahead.submit(_family, core, parts[0], spread=False)
    found: list[Derived | None] = []
    for i, part in enumerate(parts):
        family = coming.result()
        if i + 1 < len(parts):
            coming = ahead.submit(_family, core, parts[i + 1], spread=False)
        found += _derived(core, part, family, extras)
    return found


def _family(core: CoreReader, boards: Sequence[str], *, spread: bool) -> _Family:
    """The boards parsed and ranked with their children and grandchildren (`family_slots`, on every
    core where `spread`)."""
    import numpy as np

    game = core.game
    n, count = game.cells, len(boards)
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
    return _Family(depth, statuses, *family_slots(core.tables, count, occupied, o_cells, spread=spread))


def _derived(core: CoreReader, boards: Sequence[str], family: _Family, extras: bool) -> list[Derived | None]:
    """What each board's position is made of, from its part's `_family`."""
    import numpy as np

    game = core.game
    n, count = game.cells, len(boards)
    depth, statuses, own_slot, child_slot, ended, grand_slot = family
    free, further = child_slot >= 0, grand_slot >= 0  # the moves of each board in play; the replies
    replies = further.sum(axis=2)  # by board and move: none for a move that ends the game
    wanted = (  # every code the boards need, read together: each chunk decompressed once at most
        (depth, own_slot),
        (np.repeat(depth + 1, free.sum(axis=1)), child_slot[free]),
        (np.repeat(depth + 2, replies.sum(axis=1)), grand_slot[further]),
    )
    read = core.codes_at(np.concatenate([at for at, _ in wanted]), np.concatenate([slots for _, slots in wanted]))
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
    worths = np.frombuffer(WORTH, np.uint8)[child]  # 0 where there is no move
    top = worths.max(axis=1)
    playing = free.any(axis=1)
    held &= ~playing | (own == np.frombuffer(CODE_OF_WORTH, np.uint8)[top])  # its moves give its own code
    keeping, fastest = best_and_fastest(worths, top)

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
    kinds = _cells_by_board(keeping), _cells_by_board(fastest)
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
        held_kinds = (kinds[0][i], kinds[1][i]) if moves else None
        found.append(Derived(board, decoded, moves, canonical[i], orbits[i], statuses[i], playout, paths, held_kinds))
    return found


def _cells_by_board(chosen: NDArray[np.bool_]) -> list[tuple[int, ...]]:
    """The cells chosen on each board (a row), in order."""
    import numpy as np

    rows, cells = chosen.nonzero()
    every = cells.tolist()
    bounds = [0, *np.cumsum(np.bincount(rows, minlength=len(chosen))).tolist()]
    return [tuple(every[start:stop]) for start, stop in zip(bounds, bounds[1:], strict=False)]


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
