"""The checks over the ranked core, level by level in arrays, in every game.

Each level's decision positions and their best moves come from the stored codes of the level and
of its children (`ttt_db.store.core_arrays.block_moves`, the derivation the builder counts them
with), a block of slots at a time; nothing proportional to the game is held but two levels of
codes. The database's own AIs answer in arrays (`NamedAI.core_answer`); any other AI is asked
board by board, its boards sent ahead in batches. Failures are kept up to the budget's
`failures_kept`, shallowest first; the counts are exact, by depth and by kind. The weak check of
the database's own AIs runs forward from the empty board in arrays too.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

import numpy as np

from ttt_db.ais.calling import ask_ahead, candidate_moves
from ttt_db.checks.budget import CheckBudget
from ttt_db.checks.solved import (
    FAILURE_KINDS,
    StrongFailure,
    StrongResult,
    WeakResult,
    WeakSideResult,
    shallowest_first,
)
from ttt_db.errors import AIMisbehaved, DatabaseDamagedError
from ttt_db.game.definition import Game, level_slots
from ttt_db.game.rules import VALUES, Value, mover_at, opposite_value
from ttt_db.game.symmetry import canonical_transform, transform_move, untransform_moves
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
    hold_to_children,
    move_of_worth,
    orbit_sizes,
    representatives,
)
from ttt_db.store.position import MoveAnalysis

if TYPE_CHECKING:
    from ttt_db.ais.protocol import NamedAI
    from ttt_db.store.database import SolutionDatabase

ANNOUNCE_SECONDS: Final = 10.0
"""A check that will ask an AI board by board for longer than this says so before it goes on."""
BATCH: Final = 64
"""Boards in the first batch asked of a board-by-board AI; later batches take about
BATCH_SECONDS at its rate. The budget is read and progress reported between batches."""
BATCH_SECONDS: Final = 0.25
MIN_BATCH: Final = 16
MAX_BATCH: Final = 65_536
Progress = Callable[[int, int], None]
"""Called as progress(boards asked, boards to ask)."""


def _no_progress(done: int, total: int) -> None:
    return None


@dataclass
class _Tally:
    """The strong check's running counts and the failures it keeps."""

    kept_limit: int
    checked: int = 0
    failing: int = 0
    failures: list[StrongFailure] = field(default_factory=list)
    by_depth: dict[int, dict[str, int]] = field(default_factory=dict)

    def count(self, depth: int, kinds: Ints, weights: Ints) -> None:
        """Failing positions at `depth`: the kind index of each failing board and how many
        positions each stands for."""
        here = self.by_depth.setdefault(depth, {})
        totals = np.bincount(kinds, weights=weights, minlength=len(FAILURE_KINDS)).astype(np.int64)
        for kind, number in zip(FAILURE_KINDS, totals.tolist(), strict=True):  # the kinds in their order
            if number:
                here[kind] = here.get(kind, 0) + number
                self.failing += number

    @property
    def room(self) -> int:
        return max(0, self.kept_limit - len(self.failures))


def check_strong_over_core(
    ai: NamedAI,
    db: SolutionDatabase,
    *,
    canonical: bool = False,
    shortest: bool = False,
    progress: Progress | None = None,
    notice: Callable[[str], None] | None = None,
    budget: CheckBudget | None = None,
) -> StrongResult:
    """Hold the AI to the best moves (`shortest`: the fastest) at every decision position of the
    database's game (`canonical`: the canonical ones only), shallowest level first; an AI that
    treats symmetric boards alike is asked at one board of each class, its answer speaking for the
    board's images. The counts are exact; the shallowest failures are kept up to the budget's
    `failures_kept`. When the budget runs out the result says so (`stopped`) and counts what was
    checked. An AI asked board by board is timed on its first batch, and `notice` told how many
    boards it will be asked and about how long that takes at its rate."""
    game = db.game
    budget = budget or CheckBudget()
    budget.start()
    report = progress or _no_progress
    figures = db.meta()["figures"]
    by_orbit = not canonical and ai.one_answer_per_orbit
    at_representatives = canonical or by_orbit
    total = figures["decision_canonical" if canonical else "decision"]
    to_ask = figures["decision_canonical" if at_representatives else "decision"]
    tables = Tables(game)
    tally = _Tally(budget.failures_kept)
    asked = 0
    asking = 0.0  # seconds spent waiting for a board-by-board AI's answers
    step = BATCH
    stopped: str | None = None
    depth = 0
    report(0, to_ask)
    here = expand_level(tables, 0, _stored_level(db, 0))
    for depth in range(game.cells):
        stopped = budget.stop_reason()
        if stopped is not None:
            break
        below = expand_level(tables, depth + 1, _stored_level(db, depth + 1))
        insert = tables.insert(depth)
        for block in tables.blocks(depth):
            state = block_state(tables, block)
            moves = block_moves(tables, block, below, insert, masks=True)
            hold_to_children(tables, here, block, state, moves)
            deciding = state.reachable & ~state.finished & moves.deciding
            if at_representatives:
                deciding &= representatives(tables, block)
            where = np.flatnonzero(deciding)
            target = moves.fastest if shortest else moves.best
            assert target is not None
            first = 0
            while first < len(where):
                stopped = budget.stop_reason()
                if stopped is not None:
                    break
                part = where[first : first + (len(where) if ai.core_answer is not None else step)]
                left = budget.left()
                if left is not None:
                    part = part[:left]
                first += len(part)
                asking += _check_part(
                    ai, tables, block, moves, part, target.ravel()[part], at_representatives, by_orbit, tally
                )
                budget.spend(len(part))
                asked += len(part)
                report(asked, to_ask)
                if ai.core_answer is None:
                    rate = asked / max(asking, 1e-9)
                    step = min(max(int(rate * BATCH_SECONDS), MIN_BATCH), MAX_BATCH)
                    if notice is not None and asked == len(part) and to_ask / rate >= ANNOUNCE_SECONDS:
                        notice(
                            f"asking {ai.name} at {to_ask:,} decision positions of {game}: about "
                            f"{_duration(to_ask / rate)} at its rate on its first {asked:,} boards "
                            f"({rate:,.0f} a second)"
                        )
            if stopped is not None:
                break
        if stopped is not None:
            break
        here = below
    if stopped is None:
        for block in tables.blocks(game.cells):
            hold_to_children(tables, here, block, block_state(tables, block), None)
        if tally.checked != total:
            raise DatabaseDamagedError(
                f"the meta's {total:,} decision positions, where the core holds {tally.checked:,}", "table ttt_meta"
            )
    tally.failures.sort(key=shallowest_first)
    return StrongResult(
        "decision_canonical" if canonical else "decision",
        shortest,
        total,
        total if stopped is None else tally.checked,
        tally.failing,
        tally.failures,
        tally.by_depth,
        asked=asked if by_orbit else None,
        stopped=stopped,
        depth_reached=depth if stopped is not None else None,
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


def _check_part(
    ai: NamedAI,
    tables: Tables,
    block: Block,
    moves: BlockMoves,
    part: Ints,
    target: Ints,
    at_representatives: bool,
    by_orbit: bool,
    tally: _Tally,
) -> float:
    """Ask the AI at the block's slots `part` (their classes' canonical boards when
    `at_representatives`), hold its answers to the masks `target`, count every failure by kind
    and keep as many as there is room for. Returns the seconds spent waiting for a board-by-board
    AI's answers."""
    game = tables.game
    cells = game.cells
    errors: dict[int, AIMisbehaved] = {}
    started = time.perf_counter()
    if ai.core_answer is not None:  # symmetric: any image of a class answers for it, in arrays
        answered = moves.best if ai.core_answer == "best" else moves.fastest
        assert answered is not None
        chosen = answered.ravel()[part]
    else:
        boards, transforms = _boards_asked(block, part, game, at_representatives)
        chosen = np.zeros(len(part), np.int64)
        ask_ahead(ai.play, boards)
        for i, board in enumerate(boards):
            try:
                answer = candidate_moves(ai.play, board)
            except AIMisbehaved as error:
                errors[i] = error
                continue
            if transforms[i]:
                answer = untransform_moves(answer, transforms[i], game)
            chosen[i] = sum(1 << move for move in answer)
    asking = time.perf_counter() - started
    weights = orbit_sizes(tables, block, part) if by_orbit else np.ones(len(part), np.int64)
    tally.checked += int(weights.sum())
    wrong = chosen & ~target
    failed = wrong != 0
    if errors:
        failed[list(errors)] = True
    found = np.flatnonzero(failed)
    if len(found) == 0:
        return asking
    assert moves.by_cell is not None
    by_cell = moves.by_cell.reshape(-1, cells)[part[found]]
    wrong_cells = ((wrong[found, None] >> np.arange(cells)) & 1).astype(bool)
    worst_wrong = np.where(wrong_cells, by_cell, 255).min(axis=1) >> 6
    best = moves.best_worth.ravel()[part[found]] >> 6
    kinds = _KIND_OF[best.astype(np.int64), np.minimum(worst_wrong, 3).astype(np.int64)]
    tally.count(block.depth, kinds, weights[found])
    kept = found[: tally.room]
    if len(kept) == 0:
        return asking
    if ai.core_answer is not None:  # boards are made only for the failures kept
        kept_boards, kept_transforms = _boards_asked(block, part[kept], game, at_representatives)
    else:
        kept_boards, kept_transforms = [boards[i] for i in kept], [transforms[i] for i in kept]
    for j, i in enumerate(kept.tolist()):
        if tally.room == 0:
            break
        failure = _failure(
            kept_boards[j], kept_transforms[j], int(chosen[i]), int(target[i]), by_cell[j], errors.get(i), game
        )
        tally.failures += failure.images(game)[: tally.room] if by_orbit else [failure]
    return asking


def _boards_asked(block: Block, where: Ints, game: Game, at_representatives: bool) -> tuple[list[str], list[int]]:
    """The boards of the block's slots `where` as the AI is asked them, and the transform that
    made each: the class's canonical board when `at_representatives`, else the slot's own."""
    boards = boards_of_block(block, game.cells, where)
    if not at_representatives:
        return boards, [0] * len(boards)
    seen = [canonical_transform(board, game) for board in boards]
    return [image for image, _ in seen], [transform for _, transform in seen]


def _kind_table() -> Ints:
    """[best value rank, worst wrong move's value rank (3: none wrong)]: the kind's index."""
    kind = list(FAILURE_KINDS).index
    table = np.zeros((3, 4), np.int64)
    table[2, 1], table[2, 0], table[1, 0] = kind("win_to_draw"), kind("win_to_loss"), kind("draw_to_loss")
    table[2, 2], table[0, 0] = kind("slower_win"), kind("faster_loss")
    table[:, 3] = kind("error")
    return table


_KIND_OF: Final = _kind_table()


def _failure(
    board: str, transform: int, chosen: int, target: int, worths: Codes, error: AIMisbehaved | None, game: Game
) -> StrongFailure:
    """A failure told at `board`, the image under `transform` of the slot whose every move's worth
    is `worths` and whose answer (`chosen`) and best moves (`target`) are masks on the slot's board."""
    cells = game.cells
    analyses = tuple(
        sorted(
            (
                MoveAnalysis(transform_move(cell, transform, game), VALUES[rank], after, game)
                for cell, (rank, after) in ((cell, move_of_worth(w)) for cell, w in enumerate(worths.tolist()) if w)
            ),
            key=lambda analysis: analysis.move,
        )
    )
    answer, best = (
        tuple(sorted(transform_move(cell, transform, game) for cell in _cells_of(mask, cells)))
        for mask in (chosen, target)
    )
    if error is not None:
        return StrongFailure(board, (), best, error.reason, error.where, analyses)
    return StrongFailure(board, answer, best, moves=analyses)


def check_weak_over_core(
    ai: NamedAI, db: SolutionDatabase, value: Value, budget: CheckBudget | None = None
) -> WeakResult | None:
    """The weak check of one of the database's own AIs (`NamedAI.core_answer`) on a game stored as
    its core alone, forward from the empty board in arrays: every board the AI's moves and every
    reply reach, level by level, as o and as x at once (the depth-first search's boards, all of
    them, as it examines every one of a solved AI's). None when some reached board ends worse
    than the side's value: the depth-first search then finds the game that leads there. The
    budget is read between levels, a level's boards counting as examined."""
    game = db.game
    n = game.cells
    tables = Tables(game)
    targets = {"o": value, "x": opposite_value(value)}
    sides = [side for side in ("o", "x") if targets[side] != "loss"]
    reached = {side: np.ones(1, bool) for side in sides}
    visited = dict.fromkeys(("o", "x"), 0)
    budget = budget or CheckBudget()
    budget.start()
    stopped = None
    current = expand_level(tables, 0, _stored_level(db, 0))
    for depth in range(n + 1):
        stopped = budget.stop_reason()
        if stopped is not None:
            break
        for side in sides:
            visited[side] += int(np.count_nonzero(reached[side]))
            budget.spend(int(np.count_nonzero(reached[side])))
        below = expand_level(tables, depth + 1, _stored_level(db, depth + 1)) if depth < n else None
        insert = tables.insert(depth) if depth < n else None
        following = {side: np.zeros(level_slots(n, depth + 1) if depth < n else 0, bool) for side in sides}
        ai_to_move = mover_at(depth) in sides  # the AI's answers (masks) are read at this level
        for block in tables.blocks(depth):
            if not any(reached[side][block.slots].any() for side in sides):
                continue
            state = block_state(tables, block)
            moves = (
                None if below is None or insert is None else block_moves(tables, block, below, insert, masks=ai_to_move)
            )
            hold_to_children(tables, current, block, state, moves)  # the codes it reads, held to theirs
            answers = None
            if moves is not None and ai_to_move:
                answers = moves.best if ai.core_answer == "best" else moves.fastest
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
                allowed = answers if ai_moves else None
                for cell, rows, children in child_slots(tables, block, insert):
                    keep = live if rows is None else live[rows]
                    if allowed is not None:
                        keep = keep & ((allowed if rows is None else allowed[rows]) >> cell & 1).astype(bool)
                    following[side][children[keep]] = True
        reached = following
        if below is not None:
            current = below
    results = {
        side: WeakSideResult(side, visited[side], None, targets[side], stopped if side in sides else None)
        for side in ("o", "x")
    }
    return WeakResult(results["o"], results["x"])
