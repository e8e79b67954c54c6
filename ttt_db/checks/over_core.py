"""The checks over the ranked core, level by level in arrays, in every game.

Each level's decision positions and their best moves come from the stored codes of the level and
of its children (`ttt_db.store.core_arrays.block_moves`, the derivation the builder counts them
with), a block of slots at a time; nothing proportional to the game is held but two levels of
codes. The database's own AIs answer in arrays (`NamedAI.core_answer`); any other AI is asked
board by board, its boards sent ahead in batches. Failures are kept up to `FAILURES_KEPT`,
shallowest first; the counts are exact. The weak check of the database's own AIs runs forward
from the empty board in arrays too.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Final

import numpy as np

from ttt_db.ais.calling import ask_ahead, candidate_moves
from ttt_db.checks.solved import StrongFailure, StrongResult, WeakResult, WeakSideResult, shallowest_first
from ttt_db.errors import AIMisbehaved
from ttt_db.game.definition import Game
from ttt_db.game.rules import VALUES, Value, mover_at, opposite_value
from ttt_db.game.slots import level_slots
from ttt_db.game.symmetry import canonical_transform
from ttt_db.store.core_arrays import (
    Block,
    BlockMoves,
    Codes,
    Ints,
    Tables,
    block_moves,
    block_state,
    boards_of_block,
    child_slots,
    expand_level,
    move_of_worth,
    representatives,
)
from ttt_db.store.position import MoveAnalysis

if TYPE_CHECKING:
    from ttt_db.ais.registry import NamedAI
    from ttt_db.store.database import SolutionDatabase

FAILURES_KEPT: Final = 10_000
ANNOUNCE_SECONDS: Final = 10.0
"""A check that will ask an AI board by board for longer than this says so before it goes on."""
Progress = Callable[[int, int], None]
"""Called as progress(decision positions done, decision positions to check)."""


def _no_progress(done: int, total: int) -> None:
    return None


def check_strong_over_core(
    ai: NamedAI,
    db: SolutionDatabase,
    *,
    canonical: bool = False,
    shortest: bool = False,
    progress: Progress | None = None,
    notice: Callable[[str], None] | None = None,
) -> StrongResult:
    """Hold the AI to the best moves (`shortest`: the fastest) at every decision position of the
    database's game (`canonical`: the canonical ones only); an AI that treats symmetric boards
    alike is asked at one board of each class, its answer speaking for the board's images. An AI
    asked board by board is timed on its first block of boards, and `notice` told how many boards
    it will be asked and about how long that takes at its rate."""
    game = db.game
    figures = db.meta()["figures"]
    by_orbit = not canonical and ai.one_answer_per_orbit
    at_representatives = canonical or by_orbit
    total = figures["decision_canonical" if canonical else "decision"]
    to_ask = figures["decision_canonical" if at_representatives else "decision"]
    tables = Tables(game)
    failures: list[StrongFailure] = []
    failing = asked = 0
    started = time.perf_counter()
    below = expand_level(tables, game.cells, _stored_level(db, game.cells))
    for depth in range(game.cells - 1, -1, -1):
        stored = _stored_level(db, depth)
        insert = tables.insert(depth)
        for block in tables.blocks(depth):
            state = block_state(tables, block)
            moves = block_moves(tables, block, below, insert, masks=True)
            deciding = state.reachable & ~state.finished & moves.deciding
            if at_representatives:
                deciding &= representatives(tables, block)
            where = np.flatnonzero(deciding)
            if len(where) == 0:
                continue
            assert moves.best is not None and moves.fastest is not None
            target = (moves.fastest if shortest else moves.best).ravel()[where]
            for failure in _failures(ai, block, moves, where, target, game, at_representatives):
                shown = failure.images(game) if by_orbit else [failure]
                failing += len(shown)
                failures += shown[: max(0, FAILURES_KEPT - len(failures))]
            rate = len(where) / max(time.perf_counter() - started, 1e-9)
            if notice is not None and ai.core_answer is None and asked == 0 and to_ask / rate >= ANNOUNCE_SECONDS:
                notice(
                    f"asking {ai.name} at {to_ask:,} decision positions of {game}: about "
                    f"{_duration(to_ask / rate)} at its rate of {rate:,.0f} boards a second"
                )
            asked += len(where)
            (progress or _no_progress)(asked, to_ask)
        below = expand_level(tables, depth, stored)
    failures.sort(key=shallowest_first)
    return StrongResult(
        "decision_canonical" if canonical else "decision",
        shortest,
        total,
        total - failing,
        failures,
        asked=to_ask if by_orbit else None,
    )


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} minutes"
    return f"{seconds / 3600:.1f} hours"


def _stored_level(db: SolutionDatabase, depth: int) -> Codes:
    """A level's stored codes; DatabaseDamagedError at its first damaged chunk."""
    data, damage = db.core.level(depth)
    if damage:
        raise damage[0]
    return np.frombuffer(data, np.uint8)


def _cells_of(mask: int, cells: int) -> tuple[int, ...]:
    return tuple(cell for cell in range(cells) if mask >> cell & 1)


def _failures(
    ai: NamedAI, block: Block, moves: BlockMoves, where: Ints, target: Ints, game: Game, canonical: bool
) -> list[StrongFailure]:
    """The AI's failures at the block's slots `where`, held to the masks `target`, each with every
    move's value (from the same children's codes). `canonical`: the slots are their classes'
    representatives, and each is asked, and a failure told, at the class's canonical board (the
    smallest image as text, as the named lists hold it)."""
    cells = game.cells
    by_cell = moves.by_cell.reshape(-1, cells) if moves.by_cell is not None else None

    def question(board: str, index: int, chosen: tuple[int, ...] = (), *, valued: bool = True) -> StrongFailure:
        analyses: tuple[MoveAnalysis, ...] = ()
        if valued and by_cell is not None:
            worths = by_cell[where[index]].tolist()
            analyses = tuple(
                MoveAnalysis(cell, VALUES[rank], after, game)
                for cell, (rank, after) in ((cell, move_of_worth(w)) for cell, w in enumerate(worths) if w)
            )
        failure = StrongFailure(board, chosen, _cells_of(int(target[index]), cells), moves=analyses)
        if canonical:
            image, transform = canonical_transform(board, game)
            return failure.seen_as(image, transform, game)
        return failure

    if ai.core_answer is not None:  # symmetric: any image of a class answers for it
        answered = moves.best if ai.core_answer == "best" else moves.fastest
        assert answered is not None
        answers = answered.ravel()[where]
        wrong = np.flatnonzero(answers & ~target).tolist()
        boards = boards_of_block(block, cells, where[wrong])
        return [question(board, i, _cells_of(int(answers[i]), cells)) for board, i in zip(boards, wrong, strict=True)]
    boards = boards_of_block(block, cells, where)
    asked = [question(board, i, valued=False) for i, board in enumerate(boards)]
    ask_ahead(ai.play, [each.board for each in asked])
    found = []
    for i, each in enumerate(asked):
        try:
            chosen = candidate_moves(ai.play, each.board)
        except AIMisbehaved as error:
            found.append(replace(question(boards[i], i), error=error.reason, where=error.where))
            continue
        if not set(chosen) <= set(each.best):
            found.append(replace(question(boards[i], i), chosen=chosen))
    return found


def check_weak_over_core(ai: NamedAI, db: SolutionDatabase, value: Value) -> WeakResult | None:
    """The weak check of one of the database's own AIs (`NamedAI.core_answer`) on a game stored as
    its core alone, forward from the empty board in arrays: every board the AI's moves and every
    reply reach, level by level, as o and as x at once (the depth-first search's boards, all of
    them, as it examines every one of a solved AI's). None when some reached board ends worse
    than the side's value: the depth-first search then finds the game that leads there."""
    game = db.game
    n = game.cells
    tables = Tables(game)
    targets = {"o": value, "x": opposite_value(value)}
    sides = [side for side in ("o", "x") if targets[side] != "loss"]
    reached = {side: np.ones(1, bool) for side in sides}
    visited = dict.fromkeys(("o", "x"), 0)
    for depth in range(n + 1):
        for side in sides:
            visited[side] += int(np.count_nonzero(reached[side]))
        below = expand_level(tables, depth + 1, _stored_level(db, depth + 1)) if depth < n else None
        insert = tables.insert(depth) if depth < n else None
        following = {side: np.zeros(level_slots(n, depth + 1) if depth < n else 0, bool) for side in sides}
        for block in tables.blocks(depth):
            state = block_state(tables, block)
            answers = None
            for side in sides:
                here = reached[side][block.slots].reshape(block.o_cells.shape)
                if not here.any():
                    continue
                ai_moves = mover_at(depth) == side
                worse = state.won if ai_moves else np.zeros_like(here)
                if targets[side] == "win":
                    worse = worse | (state.finished & ~state.won)
                if (here & worse).any():
                    return None
                live = here & ~state.finished
                if below is None or insert is None or not live.any():
                    continue
                allowed = None
                if ai_moves:
                    if answers is None:
                        moves = block_moves(tables, block, below, insert, masks=True)
                        answers = moves.best if ai.core_answer == "best" else moves.fastest
                    allowed = answers
                for cell, rows, children in child_slots(tables, block, insert):
                    keep = live if rows is None else live[rows]
                    if allowed is not None:
                        keep = keep & ((allowed if rows is None else allowed[rows]) >> cell & 1).astype(bool)
                    following[side][children[keep]] = True
        reached = following
    results = {
        side: WeakSideResult(side, visited[side] if side in sides else 0, None, targets[side]) for side in ("o", "x")
    }
    return WeakResult(results["o"], results["x"])
