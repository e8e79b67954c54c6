"""Walks forward from the empty board over held levels, a bit per board for each walk (a side):
the kernels `reach`, `share_marks` and `marked_classes` behind typed faces, each allocating its
own arrays and scratch. The weak check of the database's own AIs walks this way
(`ttt_db.checks.weak.check_weak_over_core`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ttt_db.ranked.kernels.sets import SMALL_SIZE, TABLE_SIZE, Ints
from ttt_db.ranked.step import Level
from ttt_db.ranked.tables import RankedTables


@dataclass(frozen=True)
class MarkedCounts:
    """Of one walk's marked boards of a level, at each class's representative: how many boards
    their classes hold, how many are lost now for the side to move, and full boards drawn."""

    boards: int
    lost: int
    drawn: int


def start_marks(tables: RankedTables, walks: int) -> Ints:
    """The empty board marked, for each of `walks` walks (level 0's marks)."""
    return tables.backend.u8_of(b"\x01" * walks)


def marked_counts(tables: RankedTables, level: Level, marks: Ints, walks: int) -> list[MarkedCounts]:
    """Each walk's counts of its marked boards of `level`."""
    b, sets = tables.backend, level.sets
    found = b.i64(3 * walks)
    tables.run.marked_classes(
        tables.arrays,
        sets.arrays,
        0,
        sets.canonical,
        marks,
        walks,
        level.codes,
        found,
        b.i64(SMALL_SIZE),
        b.u32(TABLE_SIZE),
    )
    return [MarkedCounts(int(found[3 * s]), int(found[3 * s + 1]), int(found[3 * s + 2])) for s in range(walks)]


def marks_below(tables: RankedTables, level: Level, marks: Ints, allowed: Sequence[int], below: Level) -> Ints:
    """The marks of the level `below`: for each walk s, every child of its marked boards in play
    that a move allowed there reaches (allowed[s] 0: every move; 1: those keeping the best value;
    2: those also fastest, `chosen_move`), each class marked whole. A set's moves are read once for
    every walk."""
    b, sets = tables.backend, level.sets
    walks = len(allowed)
    scratch = sets.move_scratch()
    found = b.u8(walks * -(-below.sets.size // 8))
    tables.run.reach(
        tables.arrays,
        sets.arrays,
        0,
        sets.canonical,
        sets.insert,
        level.codes,
        marks,
        b.i64_of(list(allowed)),
        below.codes,
        below.sets.arrays,
        found,
        scratch.kids,
        scratch.worths,
        scratch.per,
        scratch.small,
        scratch.tab,
    )
    least = b.i64(below.sets.patterns)
    tables.run.share_marks(
        tables.arrays, below.sets.arrays, 0, below.sets.canonical, found, walks, least, scratch.small, scratch.tab
    )
    return found
