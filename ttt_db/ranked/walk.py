"""The level walker: every level of a stored core, each held to its children as it is met.

Whatever reads the core in bulk (the reader's lists and tables, both checks, the extras, verify,
export) walks it here, level by level, forward (the empty board first) or backward (the full
board first), two levels in memory. Each level is taken from its stored chunks
(`ttt_db.ranked.layout`) and held to the level below it by the retrograde rule
(`ttt_db.ranked.step.solve_level`): a stored code its children do not give, or a code where the
stored numbering keeps 0, is damage. By default the first damage raises DatabaseDamagedError
naming the board, so no reader serves a forged code; `verify` passes a `report` that takes every
damage and walks on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Literal, Protocol

from ttt_db.errors import DatabaseDamagedError
from ttt_db.ranked.codes import code_text
from ttt_db.ranked.kernels.sets import SMALL_SIZE, TABLE_SIZE
from ttt_db.ranked.kernels.step import tally_size
from ttt_db.ranked.layout import DAMAGE_KEPT, TakenLevel
from ttt_db.ranked.slots import board_of_slot
from ttt_db.ranked.step import Level, LevelCounts, LevelTally, solve_range
from ttt_db.ranked.tables import RankedTables


@dataclass(frozen=True)
class StoredLevel:
    """A level as a source gives it: taken from its chunks, and the chunks that could not be read
    (taken as zeros)."""

    taken: TakenLevel
    unreadable: list[DatabaseDamagedError] = field(default_factory=list)


class LevelSource(Protocol):
    """Where a walk reads a core's levels: a database, or a build's levels in memory."""

    def stored_level(self, tables: RankedTables, depth: int) -> StoredLevel: ...


@dataclass(frozen=True)
class Damage:
    """One slot of the core that is not what the rules and its children make it."""

    depth: int
    slot: int
    board: str
    what: str

    def error(self) -> DatabaseDamagedError:
        return DatabaseDamagedError(
            f"{self.board}: {self.what}", f"table ttt_core, level {self.depth} slot {self.slot}"
        )


Report = Callable[[Damage | DatabaseDamagedError], None]


def _raise(damage: Damage | DatabaseDamagedError) -> None:
    raise damage.error() if isinstance(damage, Damage) else damage


@dataclass(frozen=True)
class Step:
    """One level of a walk: its held codes (`here`), the level below it (None at the full board),
    the counts the rule gives it, and its tally where the walk was asked for one."""

    here: Level
    below: Level | None
    counts: LevelCounts
    tally: LevelTally | None = None

    @property
    def depth(self) -> int:
        return self.here.depth


Counted = tuple[LevelCounts, LevelTally | None]
"""A held level's counts and tally."""


def walk(
    tables: RankedTables,
    source: LevelSource,
    direction: Literal["forward", "backward"] = "forward",
    report: Report = _raise,
    depths: range | None = None,
    *,
    ahead: bool = False,
    tally: bool = False,
) -> Iterator[Step]:
    """Every level (or those of `depths`, in the walk's order), each held to the level below it as
    stored; damage goes to `report` (raising by default). A step's levels are the walk's until it
    moves on: it then lets go of those it no longer needs (keep a level, not the step, to hold on).
    `ahead` (forward only): a step comes once its level below is held too, so that whatever is
    derived from the step (a move's value is its child's code) has been held (a third level is
    read before the step comes). `tally`: each step carries its level's `LevelTally`, counted as
    the level is held."""
    n = tables.cells
    wanted = depths if depths is not None else range(n + 1)
    if direction == "backward":
        below: Level | None = None
        for depth in range(n, min(wanted, default=0) - 1, -1):
            here, counts = _stored_and_held(tables, source, depth, below, report, tally and depth in wanted)
            if depth in wanted:
                step = Step(here, below, *counts)
                yield step
                _let_go(step)
            below = here
        return
    first, last = min(wanted, default=0), max(wanted, default=-1)
    if first > last:
        return
    here = _stored(tables, source, first, report)
    below = _stored(tables, source, first + 1, report) if first < n else None
    counts = _hold(tables, first, here, below, report, tally)

    def next_held(depth: int, below: Level) -> tuple[Level | None, Counted]:
        """Level depth + 2 read, and level depth + 1 (`below`) held to it."""
        further = _stored(tables, source, depth + 2, report) if depth + 1 < n else None
        return further, _hold(tables, depth + 1, below, further, report, tally and depth + 1 <= last)

    for depth in range(first, last + 1):
        held = next_held(depth, below) if ahead and below is not None else None
        step = Step(here, below, *counts)
        yield step
        _let_go(step)
        if below is None or depth == last:
            return
        further, further_counts = held if held is not None else next_held(depth, below)
        here, below, counts = below, further, further_counts


def _let_go(step: Step) -> None:
    """The step's levels dropped once the walk has moved on, so that a caller still holding the step
    does not keep a third level in memory while the next is read."""
    object.__setattr__(step, "here", None)
    object.__setattr__(step, "below", None)


def _stored(tables: RankedTables, source: LevelSource, depth: int, report: Report) -> Level:
    """A stored level; its unreadable chunks and misplaced codes reported."""
    found = source.stored_level(tables, depth)
    for error in found.unreadable:
        report(error)
    taken = found.taken
    for slot in taken.damaged:
        report(Damage(depth, slot, board_of_slot(tables.game, depth, slot), "a code where none is stored"))
    if taken.damaged_count > len(taken.damaged):
        report(
            DatabaseDamagedError(
                f"{taken.damaged_count - len(taken.damaged):,} more codes where none are stored",
                f"table ttt_core, level {depth}",
            )
        )
    return taken.level


def _stored_and_held(
    tables: RankedTables, source: LevelSource, depth: int, below: Level | None, report: Report, tally: bool
) -> tuple[Level, Counted]:
    level = _stored(tables, source, depth, report)
    return level, _hold(tables, depth, level, below, report, tally)


def _hold(tables: RankedTables, depth: int, stored: Level, below: Level | None, report: Report, tally: bool) -> Counted:
    """Hold a stored level to the codes its stored children give, a range of canonical sets at a
    time (never a second copy of the level); the counts the rule gives (and its tally, where asked)."""
    b = tables.backend
    sets = stored.sets

    def hold(worker: int, start: int, stop: int) -> tuple[list[tuple[int, int]], int, LevelCounts, LevelTally | None]:
        ruled = b.u8((stop - start) * sets.patterns)
        tallied = b.i64(tally_size(tables.cells)) if tally else None
        counts = solve_range(tables, stored, below, start, stop, ruled, tallied)
        slots, codes = b.i64(DAMAGE_KEPT), b.i64(DAMAGE_KEPT)
        count = tables.run.differing_codes(
            tables.arrays,
            sets.arrays,
            start,
            stop,
            stored.codes,
            ruled,
            start,
            slots,
            codes,
            0,
            b.i64(SMALL_SIZE),
            b.u32(TABLE_SIZE),
        )
        kept = [(int(slots[i]), int(codes[i])) for i in range(min(count, DAMAGE_KEPT))]
        return kept, count, counts, None if tallied is None else LevelTally.of(tallied)

    damaged: list[tuple[int, int]] = []
    total = 0
    counts = LevelCounts()
    level_tally: LevelTally | None = None
    grain = max(1, 65_536 // max(1, sets.patterns))
    for kept, count, part, part_tally in b.spread(sets.canonical, hold, grain=grain):
        damaged += kept
        total += count
        counts += part
        if part_tally is not None:
            level_tally = part_tally if level_tally is None else level_tally + part_tally
    for slot, ruled_code in sorted(damaged)[:DAMAGE_KEPT]:
        at = sets.index_of(slot)
        assert at is not None, "a slot the level step rules is one of its canonical sets'"
        found = code_text(int(stored.codes[at]))
        what = f"core code {found}, its children give {code_text(ruled_code)}"
        report(Damage(depth, slot, board_of_slot(tables.game, depth, slot), what))
    if total > DAMAGE_KEPT:
        report(
            DatabaseDamagedError(f"{total - DAMAGE_KEPT:,} more codes not what their children give", f"level {depth}")
        )
    return counts, level_tally
