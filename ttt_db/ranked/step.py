"""The level step: a level's codes from the level below it, over its canonical sets only.

A `Level` is one level of a game's core as the kernels hold it: the codes of every board of its
canonical sets (`LevelSets`), a board of any other set being its image's. `solve_level` solves
every canonical set of a level from the level below (the build, and a walk holding a stored level
to its children); `solve_range` solves a range of them (a cluster's task), and both count what
they solve (`LevelCounts`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, fields
from typing import Final

from ttt_db.errors import DatabaseDamagedError
from ttt_db.game.rules import VALUES, Value
from ttt_db.ranked.codes import value_of_code
from ttt_db.ranked.kernels.sets import SMALL_SIZE, TABLE_SIZE, Ints
from ttt_db.ranked.kernels.step import CODES, COUNTS
from ttt_db.ranked.tables import LevelSets, RankedTables

Progress = Callable[[int, int], None]
"""progress(done, total): canonical sets of the level solved so far."""


@dataclass(frozen=True, slots=True)
class LevelCounts:
    """A level's counts over some of its boards, positions and classes (each class counted at its
    representative); parts add up (`+`)."""

    positions: int = 0
    canonical: int = 0
    playing: int = 0
    playing_canonical: int = 0
    decision: int = 0
    decision_canonical: int = 0
    losses: int = 0
    draws: int = 0
    wins: int = 0
    losses_canonical: int = 0
    draws_canonical: int = 0
    wins_canonical: int = 0

    def __add__(self, other: LevelCounts) -> LevelCounts:
        return LevelCounts(*(getattr(self, name) + getattr(other, name) for name in _COUNT_FIELDS))

    @classmethod
    def of(cls, counts: Ints) -> LevelCounts:
        """From a kernel's counts (`ttt_db.ranked.kernels.step.COUNTS`, in this field order)."""
        return cls(*(int(counts[i]) for i in range(COUNTS)))

    def lists(self) -> dict[str, int]:
        """The sizes of the named lists this level adds to: in play, decision, each up to symmetry."""
        return {
            "playing": self.playing,
            "playing_canonical": self.playing_canonical,
            "decision": self.decision,
            "decision_canonical": self.decision_canonical,
        }

    def values(self, *, canonical: bool = False) -> dict[str, int]:
        """Positions (classes) by their value for the side to move."""
        counts = (
            (self.losses_canonical, self.draws_canonical, self.wins_canonical)
            if canonical
            else (self.losses, self.draws, self.wins)
        )
        return dict(zip(VALUES, counts, strict=True))


_COUNT_FIELDS: Final = tuple(field.name for field in fields(LevelCounts))


@dataclass(frozen=True, slots=True)
class LevelTally:
    """What a walk that tallies counts of a level besides its `LevelCounts`: positions and classes
    by code (each class at its representative), and the positions in play by how many of their
    moves keep their value class (`keeping[k]`)."""

    positions: tuple[int, ...]
    classes: tuple[int, ...]
    keeping: tuple[int, ...]

    @classmethod
    def of(cls, tally: Ints) -> LevelTally:
        """From a kernel's tally (`ttt_db.ranked.kernels.step.tally_size`)."""
        values = [int(x) for x in tally]
        return cls(tuple(values[:CODES]), tuple(values[CODES : 2 * CODES]), tuple(values[2 * CODES :]))

    def __add__(self, other: LevelTally) -> LevelTally:
        def add(mine: tuple[int, ...], theirs: tuple[int, ...]) -> tuple[int, ...]:
            return tuple(a + b for a, b in zip(mine, theirs, strict=True))

        return LevelTally(
            add(self.positions, other.positions), add(self.classes, other.classes), add(self.keeping, other.keeping)
        )


@dataclass(frozen=True)
class Level:
    """One level's codes: every board of its canonical sets, at `c * patterns + p` (`sets`)."""

    sets: LevelSets
    codes: Ints

    @property
    def depth(self) -> int:
        return self.sets.depth

    def start_value(self) -> Value:
        """The empty board's value for o, moving first: its code in level 0, held (a held level 0
        has one; DatabaseDamagedError where it has none)."""
        decoded = value_of_code(int(self.codes[0]))
        if self.depth != 0 or decoded is None:
            raise DatabaseDamagedError("the empty board has no code", "table ttt_core, level 0")
        return decoded[0]


def solve_range(
    tables: RankedTables,
    here: Level,
    below: Level | None,
    start: int,
    stop: int,
    into: Ints | None = None,
    tally: Ints | None = None,
) -> LevelCounts:
    """Canonical sets `start` to `stop` of `here` solved from `below` (None: the full board's level),
    their codes written into `here.codes` (or, given `into`, from its beginning); their counts. A
    `tally` (`ttt_db.ranked.kernels.step.tally_size` long) is added to (`LevelTally`)."""
    b = tables.backend
    sets = here.sets
    counts = b.i64(COUNTS)
    empty = b.u8(1)
    below_sets = below.sets if below is not None else sets
    tables.run.solve_sets(
        tables.arrays,
        sets.arrays,
        start,
        stop,
        sets.insert if below is not None else b.u32(1),
        here.codes if into is None else into,
        0 if into is None else start,
        below.codes if below is not None else empty,
        below_sets.arrays,
        counts,
        tally if tally is not None else b.i64(0),
        b.u8(sets.patterns),
        b.u8(sets.patterns),
        b.u8(3 * sets.patterns if tally is not None else 0),
        b.i64(SMALL_SIZE),
        b.u32(TABLE_SIZE),
    )
    return LevelCounts.of(counts)


def range_grain(sets: LevelSets) -> int:
    """The fewest canonical sets of a level that one range of work over it is given, on a thread or
    a Dask worker (about 65,536 boards): a smaller range costs more to hand out than to do."""
    return max(1, 65_536 // max(1, sets.patterns))


def solve_level(
    tables: RankedTables, depth: int, below: Level | None, progress: Progress | None = None
) -> tuple[Level, LevelCounts]:
    """Level `depth` solved from the level below it (None for the full board's), on every worker
    of the tables' backend, with its counts."""
    sets = tables.level(depth)
    here = Level(sets, tables.backend.u8(sets.size))
    done = 0
    counted = threading.Lock()  # ranges finish on several threads: one count, reported in order

    def work(worker: int, start: int, stop: int) -> LevelCounts:
        nonlocal done
        counts = solve_range(tables, here, below, start, stop)
        with counted:
            done += stop - start
            if progress is not None:
                progress(done, sets.canonical)
        return counts

    parts = tables.backend.spread(sets.canonical, work, grain=range_grain(sets))
    total = LevelCounts()
    for part in parts:
        total += part
    return here, total


def solve_core(tables: RankedTables) -> Iterator[tuple[Level, LevelCounts]]:
    """Every level of the game, deepest first, each from the one before (two held at a time)."""
    below = None
    for depth in range(tables.cells, -1, -1):
        below, counts = solve_level(tables, depth, below)
        yield below, counts
