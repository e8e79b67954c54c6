"""The extras of a game small enough to keep them (`keeps_extras`): what the core cannot give,
each class's random-play odds and paths, stored for the core's representatives in slot order, one
compressed chunk per chunk of the core (`ttt_extras`), counted from the core's levels
(`count_extras`: the build writes them, `verify` recounts them).

A chunk holds, for each nonzero code of the core's chunk of the same level and number, in order,
four little-endian 64-bit integers (`EXTRAS_FIELDS`): the move orders of uniformly random play
from the board that o wins, that x wins, that are drawn (of the (cells - depth)! there are), and
the move sequences from the empty board that reach it.
"""

from __future__ import annotations

import sys
from array import array
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from ttt_db.game.definition import Game
from ttt_db.ranked.kernels.sets import Ints
from ttt_db.ranked.playouts import level_classes, path_counts, playout_counts
from ttt_db.ranked.step import Level
from ttt_db.ranked.tables import RankedTables
from ttt_db.store.chunks import CHUNK_SLOTS, ZSTD_LEVEL, level_chunks

EXTRAS_FIELDS: Final = ("o_wins", "x_wins", "draws", "paths")
EXTRAS_MAX_CELLS: Final = 16
"""The largest board whose database keeps its classes' random-play odds and paths (exact integers up
to cells!) beside the ranked core; larger ones keep the core alone."""


def extras_refused(o_wins: Any, x_wins: Any, draws: Any, paths: Any, ways: int) -> Any:
    """Whether a class's extras cannot be right: a negative count, odds that are not its `ways`
    move orders, or no path to it. Elementwise over numpy arrays of many classes, a bool for one."""
    return (o_wins < 0) | (x_wins < 0) | (draws < 0) | (o_wins + x_wins + draws != ways) | (paths < 1)


def keeps_extras(game: Game) -> bool:
    """Whether the game's database keeps the extras beside its core (at most EXTRAS_MAX_CELLS cells)."""
    return game.cells <= EXTRAS_MAX_CELLS


@dataclass(frozen=True, slots=True)
class ExtrasChunk:
    chunk: int
    classes: int
    blob: bytes


def encode_extras(chunk: int, values: Any) -> ExtrasChunk:
    """A chunk's extras (EXTRAS_FIELDS integers per class: a sequence, or a numpy array's slice),
    compressed (its checksum, bound to the core chunk's hash, is the writer's:
    `ttt_db.store.digest.extras_checksum`)."""
    import zstandard

    if hasattr(values, "astype"):
        data = values.astype("<i8").tobytes()
    else:
        packed = array("q", values)
        if sys.byteorder == "big":
            packed.byteswap()
        data = packed.tobytes()
    blob = zstandard.ZstdCompressor(level=ZSTD_LEVEL).compress(data)
    classes = len(data) // 8 // len(EXTRAS_FIELDS)
    return ExtrasChunk(chunk, classes, blob)


def decode_extras(data: bytes) -> array[int]:
    """The integers of a decompressed chunk, EXTRAS_FIELDS per class."""
    values = array("q")
    values.frombytes(data)
    if sys.byteorder == "big":
        values.byteswap()
    return values


@dataclass(frozen=True)
class ExtrasLevel:
    """A level's extras: every representative with a code (its slot, in slot order) and its
    EXTRAS_FIELDS values, as the backend's arrays (`as_list` reads a part), the level's tree nodes
    (the sum of its boards' paths), its chunks."""

    depth: int
    tree_nodes: int
    slots: Any
    values: Any  # EXTRAS_FIELDS per representative
    chunks: list[ExtrasChunk]


def count_extras(tables: RankedTables, levels: Sequence[Level]) -> list[ExtrasLevel]:
    """Every level's extras, by depth, from the game's levels (every level's held codes): the odds
    backward from the full boards (a finished board's (cells - depth)! move orders all end as it
    ended, a board in play's are its children's), the paths forward from the empty board (a
    board's are its parents' in play)."""
    n = tables.cells
    playouts: list[Ints | None] = [None] * (n + 2)
    for depth in range(n, -1, -1):
        below = levels[depth + 1] if depth < n else None
        playouts[depth] = playout_counts(tables, levels[depth], below, playouts[depth + 1])
    paths: list[Ints | None] = [None] * (n + 1)
    for depth in range(n + 1):
        above = levels[depth - 1] if depth else None
        paths[depth] = path_counts(tables, levels[depth], above, paths[depth - 1] if depth else None)
    return [_extras_level(tables, levels[depth], playouts[depth], paths[depth]) for depth in range(n + 1)]


def _extras_level(tables: RankedTables, level: Level, playouts: Ints | None, paths: Ints | None) -> ExtrasLevel:
    assert playouts is not None and paths is not None, "every level is counted"
    sets = level.sets
    classes = level_classes(tables, level, playouts, paths)
    found, tree_nodes = classes.found, classes.tree_nodes
    kept, numbers = _part(classes.slots, found), _part(classes.values, found * len(EXTRAS_FIELDS))
    chunks = []
    start = 0
    for number in range(level_chunks(tables.cells, sets.depth)):
        end = bisect_left(kept, (number + 1) * CHUNK_SLOTS, lo=start)
        chunks.append(encode_extras(number, numbers[start * len(EXTRAS_FIELDS) : end * len(EXTRAS_FIELDS)]))
        start = end
    return ExtrasLevel(sets.depth, tree_nodes, kept, numbers, chunks)


def _part(values: Any, count: int) -> Any:
    """The first `count` of an array, apart from it (a numpy slice would hold the whole array)."""
    part = values[:count]
    return part.copy() if hasattr(part, "copy") else part
