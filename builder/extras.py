"""What the core cannot give, for games small enough to keep it (`Game.keeps_extras`): each
class's random-play odds and paths, from the core's codes in arrays.

- paths, forward from the empty board: a board's paths are the sum of its parents' in play (the
  boards one move earlier that are not finished), so tree nodes per depth are sums of paths;
- odds, backward from the full boards: a finished board's (cells - depth)! move orders all end as
  it ended; a board in play's are the sum of its children's.

Each level's values are kept for its representatives, in slot order, in chunks aligned with the
core's (`ttt_db.store.extras`).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import factorial

import numpy as np
import numpy.typing as npt

from builder.levels import CoreBuild, CoreLevel
from ttt_db.game.definition import Game
from ttt_db.store.codes import CHUNK_SLOTS, LOSS_NOW
from ttt_db.store.core_arrays import Codes, Tables, child_slots, expand_level
from ttt_db.store.extras import EXTRAS_FIELDS, ExtrasChunk, encode_extras


@dataclass(frozen=True, slots=True)
class ExtrasLevel:
    depth: int
    tree_nodes: int
    values: npt.NDArray[np.int64]  # the level's representatives x EXTRAS_FIELDS, in slot order
    chunks: list[ExtrasChunk]


def _stored_codes(level: CoreLevel) -> Codes:
    import zstandard

    decompressor = zstandard.ZstdDecompressor()
    return np.frombuffer(b"".join(decompressor.decompress(chunk.blob) for chunk in level.chunks), np.uint8)


def solve_extras(game: Game, core: CoreBuild) -> list[ExtrasLevel]:
    """Every level's extras, by depth, from the solved core."""
    return extras_of_codes(game, [_stored_codes(level) for level in core.levels], core.codes)


def extras_of_codes(game: Game, stored: list[Codes], reachable: dict[int, Codes] | None = None) -> list[ExtrasLevel]:
    """Every level's extras, by depth, from the stored codes of every level (`verify` recounts
    them from the database's); `reachable`: levels' codes of every reachable slot already known."""
    n = game.cells
    tables = Tables(game)
    known = reachable or {}
    codes = [known[depth] if depth in known else expand_level(tables, depth, stored[depth]) for depth in range(n + 1)]
    live = [(level != 0) & (level != LOSS_NOW) & (depth < n) for depth, level in enumerate(codes)]
    paths = _paths(tables, codes, live)
    odds = _odds(tables, codes, live)
    result = []
    for depth in range(n + 1):
        columns = {"o_wins": odds[depth][:, 0], "x_wins": odds[depth][:, 1], "draws": odds[depth][:, 2]}
        columns["paths"] = paths[depth]
        kept = np.flatnonzero(stored[depth])
        values = np.stack([columns[name][kept] for name in EXTRAS_FIELDS], axis=1)
        ends = np.searchsorted(kept, np.arange(CHUNK_SLOTS, len(stored[depth]) + CHUNK_SLOTS, CHUNK_SLOTS))
        starts = np.r_[0, ends[:-1]]
        chunks = [
            encode_extras(game.name, depth, number, values[start:end])
            for number, (start, end) in enumerate(zip(starts.tolist(), ends.tolist(), strict=True))
        ]
        result.append(ExtrasLevel(depth, int(paths[depth].sum()), values, chunks))
    return result


def _paths(tables: Tables, codes: list[Codes], live: list[npt.NDArray[np.bool_]]) -> list[npt.NDArray[np.int64]]:
    n = tables.cells
    paths = [np.zeros(len(level), np.int64) for level in codes]
    paths[0][0] = 1
    for depth in range(n):
        insert = tables.insert(depth)
        for block in tables.blocks(depth):
            playing = live[depth][block.slots].reshape(block.o_cells.shape)
            here = paths[depth][block.slots].reshape(block.o_cells.shape)
            for _, rows, children in child_slots(tables, block, insert):
                keep = playing if rows is None else playing[rows]
                # one cell's moves reach distinct children: a plain indexed add counts each once
                paths[depth + 1][children[keep]] += (here if rows is None else here[rows])[keep]
    return paths


def _odds(tables: Tables, codes: list[Codes], live: list[npt.NDArray[np.bool_]]) -> list[npt.NDArray[np.int64]]:
    """Per slot: the move orders of uniformly random play from it that o wins, x wins, draw."""
    n = tables.cells
    odds: list[npt.NDArray[np.int64]] = [np.zeros((0, 3), np.int64)] * (n + 1)
    below: list[npt.NDArray[np.int64]] = []
    for depth in range(n, -1, -1):
        level = codes[depth]
        columns = [np.zeros(len(level), np.int64) for _ in range(3)]  # o wins, x wins, draws
        ways = factorial(n - depth)
        columns[0 if depth % 2 == 1 else 1][level == LOSS_NOW] = ways  # o moved last on odd depths
        if depth == n:
            columns[2][(level != 0) & (level != LOSS_NOW)] = ways
        else:
            insert = tables.insert(depth)
            for block in tables.blocks(depth):
                playing = live[depth][block.slots].reshape(block.o_cells.shape)
                totals = [np.zeros(block.o_cells.shape, np.int64) for _ in range(3)]
                for _, rows, children in child_slots(tables, block, insert):
                    for total, column in zip(totals, below, strict=True):
                        if rows is None:
                            total += column[children]
                        else:
                            total[rows] += column[children]
                for column, total in zip(columns, totals, strict=True):
                    column[block.slots] += np.where(playing, total, 0).ravel()
        below = columns
        odds[depth] = np.stack(columns, axis=1)
    return odds
