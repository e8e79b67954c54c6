"""Random-play odds and paths counted over a game's held levels: the kernels `playout_counts`,
`path_counts`, `gather_classes` and `weighted_sum` behind typed faces, each allocating its own
arrays and scratch. What the store keeps of them is `ttt_db.store.extras`."""

from __future__ import annotations

from dataclasses import dataclass
from math import factorial

from ttt_db.ranked.kernels.sets import SMALL_SIZE, TABLE_SIZE, Ints
from ttt_db.ranked.step import Level
from ttt_db.ranked.tables import RankedTables

FIELDS = 4
"""Per class: o wins, x wins, draws (of its move orders) and paths."""


def playout_counts(tables: RankedTables, level: Level, below: Level | None, below_counts: Ints | None) -> Ints:
    """[board * 3 + f], laid out as the level's codes: of the (cells - depth)! equally likely move
    orders of random play from each reachable board, how many o wins (f 0), x wins (1), draws (2);
    from the level `below` and its counts (None at the full board's level)."""
    b, n, sets = tables.backend, tables.cells, level.sets
    counts = b.i64(sets.size * 3)
    tables.run.playout_counts(
        tables.arrays,
        sets.arrays,
        0,
        sets.canonical,
        sets.insert if below is not None else b.u32(1),
        level.codes,
        below_counts if below_counts is not None else counts,
        (below or level).sets.arrays,
        factorial(n - sets.depth),
        counts,
        b.i64(SMALL_SIZE),
        b.u32(TABLE_SIZE),
    )
    return counts


def path_counts(tables: RankedTables, level: Level, above: Level | None, above_paths: Ints | None) -> Ints:
    """[board], laid out as the level's codes: how many move sequences from the empty board reach
    each reachable board, from the level `above` and its paths (None at the empty board's level)."""
    b, sets = tables.backend, level.sets
    paths = b.i64(sets.size)
    if above is None or above_paths is None:
        paths[0] = 1
        return paths
    tables.run.path_counts(
        tables.arrays,
        sets.arrays,
        0,
        sets.canonical,
        level.codes,
        above.codes,
        above_paths,
        above.sets.arrays,
        paths,
        b.i64(SMALL_SIZE),
        b.u32(TABLE_SIZE),
    )
    return paths


@dataclass(frozen=True)
class LevelClasses:
    """A level's classes with a code, in slot order: each representative's slot and its FIELDS
    values (`values[i * FIELDS:]`), and the paths of every board of the level summed (its tree nodes)."""

    slots: Ints
    values: Ints
    found: int
    tree_nodes: int


def level_classes(tables: RankedTables, level: Level, playouts: Ints, paths: Ints) -> LevelClasses:
    """The level's classes with their odds and paths (from `playout_counts` and `path_counts`)."""
    b, sets = tables.backend, level.sets
    weights = sets.orbit_weights()
    slots, values = b.i64(sets.size), b.i64(sets.size * FIELDS)
    run = tables.run
    found = run.gather_classes(sets.arrays, 0, sets.canonical, level.codes, weights, playouts, paths, slots, values, 0)
    return LevelClasses(slots, values, found, int(run.weighted_sum(sets.size, paths, weights)))
