"""The export's rows in arrays: the positions of a core's levels, a block of boards at a time.

A row is one position (every reachable board, in the stored (depth, slot) order) or one class
(told at its canonical board, the least image, in the order of the level's canonical sets). Each
`RowBlock` holds, per row, the board's and its canonical board's cells, the canonical board's
base-3 key, the class's size, the code,
every move's worth carried onto the row's board (`ttt_db.ranked.kernels.moves.slot_moves`), the best and
fastest moves as cell masks and, where the database keeps them, the index of the class's random-play
odds and paths in its level's `LevelExtras`. The level walker holds every level read (and, `ahead`,
its children), so no row carries a code the rules refuse.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from enum import StrEnum
from math import factorial
from typing import TYPE_CHECKING, Any

from ttt_db.errors import DatabaseDamagedError
from ttt_db.game.definition import Game
from ttt_db.store.tables import EXTRAS

if TYPE_CHECKING:  # numpy and the kernels load with the first rows read, not with the command line
    import numpy as np
    from numpy.typing import NDArray

    from ttt_db.ranked.backend import Backend
    from ttt_db.ranked.blocks import Block
    from ttt_db.ranked.kernels.sets import Ints
    from ttt_db.ranked.walk import Step
    from ttt_db.store.core import CoreReader
    from ttt_db.store.database import SolutionDatabase


class RowMode(StrEnum):
    """What one exported row stands for."""

    positions = "positions"  # every reachable board
    classes = "classes"  # each symmetry class once, at its canonical board, `orbit` its size


@dataclass(frozen=True)
class LevelExtras:
    """A level's random-play odds and paths, one row per class in slot order: o wins, x wins and
    draws among `ways` move orders, and the paths reaching it (`ttt_db.store.extras`)."""

    depth: int
    ways: int
    values: NDArray[np.int64]  # [class, EXTRAS_FIELDS]


@dataclass(frozen=True)
class RowBlock:
    """Some rows of one level, column by column (see the module)."""

    game: Game
    backend: Backend  # where its kernels run
    depth: int
    boards: NDArray[np.int64]  # [row, 4]: the board's o and x cells, its canonical board's o and x cells
    class_keys: NDArray[np.int64]  # the canonical board's base-3 key (`Game.key`)
    orbits: NDArray[np.int64]
    codes: NDArray[np.uint8]
    worths: NDArray[np.uint8] | None  # [row, cell]: the move's worth to the mover, 0 where it cannot move
    best: NDArray[np.int64]  # cell masks
    fastest: NDArray[np.int64]
    classes: NDArray[np.int64] | None  # each row's class in `extras`
    extras: LevelExtras | None

    @property
    def rows(self) -> int:
        return len(self.codes)

    def taken(self, rows: NDArray[np.intp] | slice) -> RowBlock:
        """The block of `rows`: indices, in their order, or a slice (views, not copies)."""

        def picked(values: NDArray[Any]) -> NDArray[Any]:
            return values[rows] if isinstance(rows, slice) else values.take(rows, axis=0)

        return replace(
            self,
            boards=picked(self.boards),
            class_keys=picked(self.class_keys),
            orbits=picked(self.orbits),
            codes=picked(self.codes),
            worths=None if self.worths is None else picked(self.worths),
            best=picked(self.best),
            fastest=picked(self.fastest),
            classes=None if self.classes is None else picked(self.classes),
        )

    @property
    def canonical(self) -> NDArray[np.bool_]:
        """Whether each row's board is its class's canonical board."""
        same: NDArray[np.bool_] = (self.boards[:, :2] == self.boards[:, 2:]).all(axis=1)
        return same


def database_rows(
    database: SolutionDatabase, depths: Iterable[int] | None, mode: RowMode, *, worths: bool = True
) -> Iterator[RowBlock]:
    """The export's rows of the database's levels `depths` (all by default), a block at a time,
    with each class's odds and paths where kept and every move's worth where `worths`;
    InvalidDepthError for a depth the game has not."""
    extras = database.has_extras
    if depths is None:
        yield from row_blocks(database.core, None, mode, extras=extras, worths=worths)
        return
    for depth in database.levels(depths):
        yield from row_blocks(database.core, range(depth, depth + 1), mode, extras=extras, worths=worths)


def row_blocks(
    core: CoreReader, depths: range | None, mode: RowMode, *, extras: bool, worths: bool = True
) -> Iterator[RowBlock]:
    """The rows of the core's levels `depths` (all by default), in order, a block at a time; with
    `extras`, each class's odds and paths (DatabaseDamagedError where they cannot be right); with
    `worths`, every move's worth."""
    from ttt_db.ranked.blocks import blocks

    tables = core.tables
    per_class = mode is RowMode.classes
    for step in core.walk(depths=depths, ahead=True):  # no move's value from a level not held
        level_extras = level_extras_of(core, step.depth) if extras else None
        ordinals = _class_ordinals(step) if extras else None
        for block in blocks(tables, step, canonical=per_class, moves=True):
            found = block.selected(0)
            if len(found):
                yield _row_block(core.game, step, block, found, per_class, worths, level_extras, ordinals)


def _row_block(
    game: Game,
    step: Step,
    block: Block,
    where: Ints,
    per_class: bool,
    worths: bool,
    level_extras: LevelExtras | None,
    ordinals: NDArray[np.int64] | None,
) -> RowBlock:
    import numpy as np

    rows = block.rows(where, to_class=per_class, worths=worths)
    count, n = len(where), block.tables.cells
    classes = None
    if ordinals is not None:
        classes = ordinals[_canonical_indices(block, where, per_class)]
    return RowBlock(
        game,
        block.tables.backend,
        step.depth,
        np.asarray(rows.boards, np.int64).reshape(count, 4),
        np.asarray(rows.class_keys, np.int64),
        np.asarray(rows.orbits, np.int64),
        np.asarray(rows.codes, np.uint8),
        np.asarray(rows.worths, np.uint8).reshape(count, n) if worths else None,
        np.asarray(rows.best, np.int64),
        np.asarray(rows.fastest, np.int64),
        classes,
        level_extras,
    )


def _class_ordinals(step: Step) -> NDArray[np.int64]:
    """[canonical index]: how many representatives come before it in the level (its class's row of
    the level's extras: canonical sets are in rank order, so their representatives are in slot order)."""
    import numpy as np

    weights = step.here.sets.orbit_weights()
    present = (np.asarray(weights, np.int64) != 0) & (np.asarray(step.here.codes, np.uint8) != 0)
    before: NDArray[np.int64] = np.cumsum(present, dtype=np.int64) - present
    return before


def _canonical_indices(block: Block, where: Ints, per_class: bool) -> NDArray[np.int64]:
    """The canonical index (`c * patterns + p`) of the class representative of each board at `where`."""
    import numpy as np

    count = block.sets.patterns
    at = np.asarray(where, np.int64)
    if per_class:
        return np.int64(block.first * count) + at
    chosen = np.asarray(block.class_slots(), np.int64)[at]
    ci = np.asarray(block.sets.ci, np.int64)
    indices: NDArray[np.int64] = ci[chosen // count] * count + chosen % count
    return indices


def level_extras_of(core: CoreReader, depth: int) -> LevelExtras:
    """Level `depth`'s odds and paths, every chunk read and checked; DatabaseDamagedError where a
    class's extras cannot be right (`extras_refused`), naming its chunk."""
    import numpy as np

    from ttt_db.store.extras import EXTRAS_FIELDS, extras_refused

    ways = factorial(core.game.cells - depth)
    parts = []
    for number in range(core.chunk_count(depth)):
        codes = core.chunk(depth, number)
        parts.append(np.asarray(core.extras_level_chunk(depth, number, len(codes) - codes.count(0)), np.int64))
    values = np.concatenate(parts).reshape(-1, len(EXTRAS_FIELDS)) if parts else np.zeros((0, 4), np.int64)
    wrong = np.flatnonzero(extras_refused(values[:, 0], values[:, 1], values[:, 2], values[:, 3], ways))
    if len(wrong):
        o_wins, x_wins, draws, paths = values[wrong[0]].tolist()
        ends = np.cumsum([len(part) // len(EXTRAS_FIELDS) for part in parts])  # each chunk's classes, summed
        number = int(np.searchsorted(ends, wrong[0], side="right"))
        raise DatabaseDamagedError(
            f"odds {[o_wins, x_wins, draws]} and paths {paths} for class {int(wrong[0])}: not {ways:,} move orders",
            f"table {EXTRAS}, level {depth} chunk {number}",
        )
    return LevelExtras(depth, ways, values)
