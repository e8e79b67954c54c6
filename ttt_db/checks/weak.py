"""The weak check: from the empty board, does the AI always get the game's value, whatever the
opponent does, as o and as x?

On tic-tac-toe (a draw) it must never lose; where o wins (4x4k3, 3x4k3, ...) it must always win as
o, and as x there is nothing to prove. A depth-first search follows every AI candidate and every
opponent move, skips a board already examined, and stops at the first game that ends worse (the
counterexample); the database's own AIs are walked forward over the core's levels instead, every
board their moves and every reply reach, as o and as x at once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import TYPE_CHECKING, Any, Final

from ttt_db.ais.calling import candidate_moves
from ttt_db.ais.protocol import AI, DatabaseAI
from ttt_db.checks.budget import CheckBudget
from ttt_db.errors import AIMisbehaved
from ttt_db.game.definition import Game
from ttt_db.game.rules import EMPTY, Mark, Value, mover_at, opposite_value

if TYPE_CHECKING:
    from ttt_db.ais.protocol import NamedAI
    from ttt_db.store.database import SolutionDatabase


@dataclass(frozen=True, slots=True)
class Counterexample:
    side: Mark  # the side the AI played
    moves: tuple[int, ...]  # from the empty board to the lost game (or the bad answer)
    board: str  # the final board
    error: str | None = None  # set when the AI misbehaved rather than lost
    where: str | None = None  # path:line in the user's code when the AI raised

    def to_dict(self) -> dict[str, Any]:
        document: dict[str, Any] = {"side": self.side, "moves": list(self.moves), "board": self.board}
        if self.error is not None:
            document["error"] = self.error
            document["where"] = self.where
        return document


@dataclass(frozen=True, slots=True)
class WeakSideResult:
    side: Mark
    visited: int  # distinct boards examined, finished games included
    counterexample: Counterexample | None
    target: Value = "draw"  # what the side gets from the empty board with best play
    stopped: str | None = None  # one of STOP_REASONS when it ended before examining every board

    @property
    def solved(self) -> bool | None:
        """True or False when proven; None when it stopped early without a counterexample."""
        if self.counterexample is not None:
            return False
        return True if self.stopped is None else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "solved": self.solved,
            "complete": self.stopped is None or self.counterexample is not None,
            "stopped": self.stopped,
            "target": self.target,
            "visited": self.visited,
            "counterexample": None if self.counterexample is None else self.counterexample.to_dict(),
        }


@dataclass(frozen=True, slots=True)
class WeakResult:
    o: WeakSideResult
    x: WeakSideResult

    @property
    def solved(self) -> bool | None:
        return both_solved(self.o.solved, self.x.solved)

    @property
    def visited(self) -> int:
        """Boards examined by both searches together (each search counts its own)."""
        return self.o.visited + self.x.visited

    @property
    def counterexample(self) -> Counterexample | None:
        return self.o.counterexample or self.x.counterexample

    def to_dict(self) -> dict[str, Any]:
        counterexample = self.counterexample
        return {
            "solved": self.solved,
            "o": self.o.to_dict(),
            "x": self.x.to_dict(),
            "visited": self.visited,
            "counterexample": None if counterexample is None else counterexample.to_dict(),
        }


def both_solved(*verdicts: bool | None) -> bool | None:
    """False when any verdict is, True when all are, None (not decided) otherwise."""
    if False in verdicts:
        return False
    return None if None in verdicts else True


WEAK_STRIDE: Final = 64
"""Boards the weak check examines between two looks at its budget and two progress reports."""


def check_weak_side(
    ai: AI,
    side: Mark,
    game: Game,
    target: Value,
    *,
    budget: CheckBudget | None = None,
    progress: Callable[[int], None] | None = None,
) -> WeakSideResult:
    """Depth-first search from the empty board with the AI playing `side`, which gets `target`
    with best play: a lost game is a counterexample, and so is a drawn one when `target` is a
    win. A side whose target is a loss has nothing to prove (nothing is examined). The search
    spends `budget` a board at a time and stops, undecided, when it runs out; `progress` hears
    the boards examined so far."""
    if target == "loss":
        return WeakSideResult(side, 0, None, target)
    budget = budget or CheckBudget()
    budget.start()
    stopped = budget.stop_reason()
    if stopped is not None:
        return WeakSideResult(side, 0, None, target, stopped)
    must_win = target == "win"
    known = ai.known_answers() if isinstance(ai, DatabaseAI) else None  # the database's own, read at once
    examined: set[str] = set()
    line_partners = game.line_partners
    in_a_row = game.k
    cells = range(game.cells)
    movers = [mover_at(ply) for ply in range(game.cells + 1)]
    # (board, moves from the empty board, whether the last move completed a line)
    stack: list[tuple[str, tuple[int, ...], bool]] = [(game.empty_board, (), False)]
    while stack:
        board, moves, won = stack.pop()
        if board in examined:
            continue
        if len(examined) % WEAK_STRIDE == 0 and examined:
            budget.spend(WEAK_STRIDE)
            if progress is not None:
                progress(len(examined))
            stopped = budget.stop_reason()
            if stopped is not None:
                return WeakSideResult(side, len(examined), None, target, stopped)
        examined.add(board)
        mover = movers[len(moves)]
        ai_to_move = mover == side
        if won:
            if ai_to_move:  # the opponent made the last move, and won
                return WeakSideResult(side, len(examined), Counterexample(side, moves, board), target)
            continue
        if EMPTY not in board:
            if must_win:
                return WeakSideResult(side, len(examined), Counterexample(side, moves, board), target)
            continue
        replies: Sequence[int]
        if ai_to_move:
            known_replies = known.get(board) if known is not None else None
            if known_replies is not None:
                replies = known_replies
            else:
                try:
                    replies = candidate_moves(ai, board)
                except AIMisbehaved as error:
                    return WeakSideResult(
                        side, len(examined), Counterexample(side, moves, board, error.reason, error.where), target
                    )
        else:
            replies = [i for i in cells if board[i] == EMPTY]
        for move in reversed(replies):  # pushed in reverse so index order is explored first
            child = board[:move] + mover + board[move + 1 :]
            if child in examined:
                continue
            completes = False
            if in_a_row == 3:  # tic-tac-toe's case, unrolled: a pair of partners per line
                for a, b in line_partners[move]:
                    if board[a] == mover and board[b] == mover:
                        completes = True
                        break
            else:
                for partners in line_partners[move]:
                    if all(board[cell] == mover for cell in partners):
                        completes = True
                        break
            stack.append((child, moves + (move,), completes))
    budget.spend(len(examined) % WEAK_STRIDE)
    return WeakSideResult(side, len(examined), None, target)


def check_weak(
    ai: AI,
    game: Game,
    value: Value,
    *,
    budget: CheckBudget | None = None,
    progress: Callable[[int], None] | None = None,
) -> WeakResult:
    """The weak check as o and as x, in a game worth `value` to o from the empty board, both
    spending one `budget` (o at most half of it, x the rest); `progress` hears the boards examined
    by both so far."""
    budget = budget or CheckBudget()
    as_o = check_weak_side(ai, "o", game, value, budget=budget.share(2), progress=progress)
    done = as_o.visited

    def after_o(examined: int) -> None:
        if progress is not None:
            progress(done + examined)

    as_x = check_weak_side(ai, "x", game, opposite_value(value), budget=budget.share(1), progress=after_o)
    return WeakResult(as_o, as_x)


def check_weak_over_core(
    ai: NamedAI, database: SolutionDatabase, budget: CheckBudget | None = None
) -> WeakResult | None:
    """The weak check of one of the database's own AIs (`NamedAI.core_answer`), forward from the
    empty board over the core's levels: every board the AI's moves and every reply reach, as o and
    as x at once (the depth-first search's boards, all of them, as it examines every one of a
    solved AI's), marked class by class, a bit a board (the AI's moves treat symmetric boards
    alike), each side held to what it gets from the empty board (its held code). None when some
    reached board ends worse than the side's value: the depth-first search then finds the game
    that leads there. The budget is read between levels, a level's boards counting as examined."""
    from ttt_db.ranked.marks import marked_counts, marks_below, start_marks

    tables = database.core.tables
    walk = database.core.walk()
    first = next(walk)
    value = first.here.start_value()
    targets = {"o": value, "x": opposite_value(value)}
    sides = [side for side in ("o", "x") if targets[side] != "loss"]
    marks = start_marks(tables, len(sides))
    visited = dict.fromkeys(("o", "x"), 0)
    budget = budget or CheckBudget()
    budget.start()
    stopped = None
    allowed = 1 if ai.core_answer == "best" else 2
    for step in chain([first], walk):
        depth = step.depth
        stopped = budget.stop_reason()
        if stopped is not None:
            break
        for side, found in zip(sides, marked_counts(tables, step.here, marks, len(sides)), strict=True):
            visited[side] += found.boards
            budget.spend(found.boards)
            lost = mover_at(depth) == side and found.lost > 0  # the AI to move, and the other side has a line
            if lost or (targets[side] == "win" and found.drawn > 0):
                return None
        if step.below is None:
            break
        moves = [allowed if mover_at(depth) == side else 0 for side in sides]
        marks = marks_below(tables, step.here, marks, moves, step.below)
    results = {
        side: WeakSideResult(side, visited[side], None, targets[side], stopped if side in sides else None)
        for side in ("o", "x")
    }
    return WeakResult(results["o"], results["x"])
