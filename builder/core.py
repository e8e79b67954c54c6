"""The ranked core in arrays: every level of a game solved by dense slots (`ttt_db.game.slots`,
in arrays `ttt_db.store.core_arrays`), deepest first, holding two levels in memory, with no keys,
no edges and no forward pass (a slot's reachability is a local test: `block_state`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import astuple, dataclass

import numpy as np

from ttt_db.game.definition import Game, level_slots
from ttt_db.store.core_arrays import (
    Block,
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
class LevelCounts:
    """A level's counts over some of its slots; parts add up (`+`)."""

    positions: int = 0
    canonical: int = 0
    playing: int = 0
    playing_canonical: int = 0
    decision: int = 0
    decision_canonical: int = 0

    def __add__(self, other: LevelCounts) -> LevelCounts:
        return LevelCounts(*(mine + theirs for mine, theirs in zip(astuple(self), astuple(other), strict=True)))

    def lists(self) -> dict[str, int]:
        """The sizes of the named lists this level adds to: in play, decision, each up to symmetry."""
        return {
            "playing": self.playing,
            "playing_canonical": self.playing_canonical,
            "decision": self.decision,
            "decision_canonical": self.decision_canonical,
        }


@dataclass(frozen=True, slots=True)
class SolvedLevel:
    """One level: every reachable slot's code (`codes`), the codes the database keeps (only each
    class's representative: `stored`), and its counts over every position and over the classes."""

    depth: int
    codes: Codes
    stored: Codes
    counts: LevelCounts

    @property
    def positions(self) -> int:
        return self.counts.positions

    @property
    def canonical(self) -> int:
        return self.counts.canonical


def solve_blocks(
    tables: Tables,
    depth: int,
    below: Codes | None,
    blocks: Iterable[Block],
    codes: Codes,
    stored: Codes,
    progress: LevelProgress = _no_progress,
) -> LevelCounts:
    """The level step: `blocks` of level `depth` solved from the codes of every reachable slot one
    level deeper (None at a full board), each slot's code written to `codes` and, for the
    representatives, to `stored` (both the whole level's arrays, or files mapped as such); the
    counts over those slots. Ranges of blocks are independent: a level may be solved in parts."""
    insert = tables.insert(depth) if depth < tables.cells and below is not None else None
    counts = LevelCounts()
    for block in blocks:
        state = block_state(tables, block)
        in_play = (state.reachable & ~state.finished).ravel()
        moves = None if insert is None or below is None else block_moves(tables, block, below, insert)
        decision = in_play & moves.deciding.ravel() if moves is not None else np.zeros_like(in_play)
        block_codes_here = block_codes(state, moves).ravel()
        representative = representatives(tables, block).ravel()
        stored_here = np.where(representative, block_codes_here, 0)
        codes[block.slots] = block_codes_here
        stored[block.slots] = stored_here
        counts += LevelCounts(
            int(np.count_nonzero(block_codes_here)),
            int(np.count_nonzero(stored_here)),
            int(np.count_nonzero(in_play)),
            int(np.count_nonzero(in_play & representative)),
            int(np.count_nonzero(decision)),
            int(np.count_nonzero(decision & representative)),
        )
        progress(block.slots.stop, len(codes))
    return counts


def solve_level(tables: Tables, depth: int, below: Codes | None, progress: LevelProgress = _no_progress) -> SolvedLevel:
    """Level `depth` from the codes of every reachable slot one level deeper (None at a full board)."""
    codes = np.zeros(level_slots(tables.cells, depth), np.uint8)
    stored = np.zeros(len(codes), np.uint8)
    counts = solve_blocks(tables, depth, below, tables.blocks(depth), codes, stored, progress)
    return SolvedLevel(depth, codes, stored, counts)


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
