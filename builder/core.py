"""The ranked core in arrays: every level of a game solved by dense slots (`ttt_db.game.slots`,
in arrays `ttt_db.store.core_arrays`), deepest first, holding two levels in memory, with no keys,
no edges and no forward pass (a slot's reachability is a local test: `block_state`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from ttt_db.game.definition import Game, level_slots
from ttt_db.store.core_arrays import (
    Codes,
    Tables,
    block_codes,
    block_moves,
    block_state,
    representatives,
)

LevelProgress = Callable[[int, int], None]
"""Called as progress(slots done, slots of the level) while a level is solved."""


def _no_progress(done: int, total: int) -> None:
    return None


@dataclass(frozen=True, slots=True)
class SolvedLevel:
    """One level: every reachable slot's code (`codes`), the codes the database keeps (only each
    class's representative: `stored`), and its counts over every position and over the classes."""

    depth: int
    codes: Codes
    stored: Codes
    positions: int
    canonical: int
    playing: int = 0
    playing_canonical: int = 0
    decision: int = 0  # in play, and not every move keeps the value
    decision_canonical: int = 0


def solve_level(tables: Tables, depth: int, below: Codes | None, progress: LevelProgress = _no_progress) -> SolvedLevel:
    """Level `depth` from the codes of every reachable slot one level deeper (None at a full board)."""
    n = tables.cells
    codes = np.zeros(level_slots(n, depth), np.uint8)
    representative = np.zeros(len(codes), bool)
    playing = np.zeros(len(codes), bool)
    decision = np.zeros(len(codes), bool)
    insert = tables.insert(depth) if depth < n and below is not None else None
    for block in tables.blocks(depth):
        state = block_state(tables, block)
        in_play = state.reachable & ~state.finished
        moves = None
        if insert is not None and below is not None:
            moves = block_moves(tables, block, below, insert)
            decision[block.slots] = (in_play & moves.deciding).ravel()
        codes[block.slots] = block_codes(state, moves).ravel()
        playing[block.slots] = in_play.ravel()
        representative[block.slots] = representatives(tables, block).ravel()
        progress(block.slots.stop, len(codes))
    stored = np.where(representative, codes, 0).astype(np.uint8)
    return SolvedLevel(
        depth,
        codes,
        stored,
        int(np.count_nonzero(codes)),
        int(np.count_nonzero(stored)),
        int(np.count_nonzero(playing)),
        int(np.count_nonzero(playing & representative)),
        int(np.count_nonzero(decision)),
        int(np.count_nonzero(decision & representative)),
    )


def solve_core(
    game: Game,
    progress: Callable[[int, int, int], None] | None = None,
    start: tuple[int, Codes] | None = None,
) -> Iterator[SolvedLevel]:
    """Every level, deepest first, with progress(depth, slots done, slots); `start`, the depth and
    reachable codes of a level already solved, resumes just above it."""
    tables = Tables(game)
    below = start[1] if start is not None else None
    first = start[0] - 1 if start is not None else game.cells
    for depth in range(first, -1, -1):

        def level_progress(done: int, total: int, depth: int = depth) -> None:
            if progress is not None:
                progress(depth, done, total)

        level = solve_level(tables, depth, below, level_progress)
        yield level
        below = level.codes
