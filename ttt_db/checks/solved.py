"""Is an AI solved? Exact answers, with the evidence when it is not.

- Strong: at every decision position (a stored node list) the AI's candidates are a subset of
  the stored best moves.
- Weak: from the empty board the AI always gets the game's value, whatever the opponent does,
  as o and as x: on tic-tac-toe (a draw) it never loses; where o wins (4x4k3, 2x2k2, ...) it
  always wins as o, and as x there is nothing to prove. A depth-first search follows every AI
  candidate and every opponent move, skips a board already examined, and stops at the first
  game that ends worse (the counterexample).

An AI that answers badly (a move off the board or on a taken cell, no move, an exception) fails
at that board; the failure carries the error instead of crashing the check.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Final

from ttt_db.ais.calling import candidate_moves
from ttt_db.ais.protocol import AI
from ttt_db.checks.budget import CheckBudget
from ttt_db.errors import AIMisbehaved
from ttt_db.game.definition import Game
from ttt_db.game.rules import EMPTY, Mark, Value, mover_at, opposite_value, play, side_to_move
from ttt_db.game.symmetry import symmetric_images, transform_move
from ttt_db.position import analyses_of

if TYPE_CHECKING:
    from ttt_db.position import MoveAnalysis


@dataclass(frozen=True, slots=True)
class StrongFailure:
    """A decision position where the AI may leave the best moves. `moves` (every legal move's
    value and remoteness for the mover) is filled in from the database by `run_checks`."""

    board: str
    chosen: tuple[int, ...]
    best: tuple[int, ...]
    error: str | None = None
    where: str | None = None
    moves: tuple[MoveAnalysis, ...] = ()

    @property
    def wrong(self) -> tuple[int, ...]:
        """The candidates that are not best moves."""
        return tuple(move for move in self.chosen if move not in self.best)

    @property
    def depth(self) -> int:
        return len(self.board) - self.board.count(EMPTY)

    def analyses(self, moves: Sequence[int]) -> list[MoveAnalysis]:
        return analyses_of(self.moves, moves)

    def images(self, game: Game) -> list[StrongFailure]:
        """The same failure on each distinct symmetric image of the board, this one included
        (what a symmetric AI does on the images)."""
        seen: dict[str, StrongFailure] = {}
        for transform, image in enumerate(symmetric_images(self.board, game)):
            if image not in seen:
                seen[image] = self.seen_as(image, transform, game)
        return list(seen.values())

    def seen_as(self, image: str, transform: int, game: Game) -> StrongFailure:
        """The same failure told on `image`, the board's image under `transform`: every move
        carried there."""
        return replace(
            self,
            board=image,
            chosen=tuple(sorted(transform_move(move, transform, game) for move in self.chosen)),
            best=tuple(sorted(transform_move(move, transform, game) for move in self.best)),
            moves=tuple(
                sorted(
                    (replace(a, move=transform_move(a.move, transform, game)) for a in self.moves),
                    key=lambda a: a.move,
                )
            ),
        )

    def to_dict(self) -> dict[str, Any]:
        document: dict[str, Any] = {
            "board": self.board,
            "to_move": side_to_move(self.board),
            "chosen": list(self.chosen),
            "best": list(self.best),
        }
        if self.error is not None:
            document["error"] = self.error
            document["where"] = self.where
        document["wrong"] = list(self.wrong)
        if self.moves:
            document["wrong_move_values"] = [analysis.to_dict() for analysis in self.analyses(self.wrong)]
            document["best_move_values"] = [analysis.to_dict() for analysis in self.analyses(self.best)]
        return document


FAILURE_KINDS: Final = {
    "error": "the AI failed to answer",
    "win_to_loss": "a win thrown to a loss",
    "win_to_draw": "a win thrown to a draw",
    "draw_to_loss": "a draw thrown to a loss",
    "slower_win": "a slower win",
    "faster_loss": "a faster loss",
}
"""What a strong failure throws away, worst first, and how a report says it: the AI answered
badly ("error"), or its worst wrong move turns the mover's value into a worse one, or with
`--shortest` keeps the value but wins later or loses sooner."""
STOP_REASONS: Final = ("max_boards", "deadline", "cancelled")
"""Why a check ended before it had seen every board (`CheckBudget`)."""


@dataclass
class StrongResult:
    """The strong check's answer: exact counts over the decision positions it reached (`checked`,
    `failing`, `by_depth`), the shallowest failures up to a limit (`failures`), and, when it stopped
    early (`stopped`), how far it got: every depth below `depth_reached` was checked in full."""

    positions: str  # the node list checked
    shortest: bool
    total: int
    checked: int
    failing: int
    failures: list[StrongFailure] = field(default_factory=list)
    by_depth: dict[int, dict[str, int]] = field(default_factory=dict)  # depth -> kind -> failing positions
    asked: int | None = None  # boards the AI was asked at, when fewer than `checked` (one per orbit)
    stopped: str | None = None  # one of STOP_REASONS when it ended early
    depth_reached: int | None = None  # the level it stopped in
    reached_in_part: bool = True  # some of depth_reached's boards checked (not none of them)

    @property
    def correct(self) -> int:
        return self.checked - self.failing

    @property
    def complete(self) -> bool:
        return self.stopped is None

    @property
    def solved(self) -> bool | None:
        """True or False when proven; None when it stopped early without finding a failure."""
        if self.failing:
            return False
        return True if self.complete else None

    @property
    def by_kind(self) -> dict[str, int]:
        """Failing positions per kind (FAILURE_KINDS), over every depth."""
        totals = dict.fromkeys(FAILURE_KINDS, 0)
        for kinds in self.by_depth.values():
            for kind, count in kinds.items():
                totals[kind] += count
        return {kind: count for kind, count in totals.items() if count}

    def to_dict(self) -> dict[str, Any]:
        return {
            "solved": self.solved,
            "complete": self.complete,
            "stopped": self.stopped,
            "depth_reached": self.depth_reached,
            "reached_in_part": self.reached_in_part if self.stopped is not None else None,
            "correct": self.correct,
            "checked": self.checked,
            "failing": self.failing,
            "total": self.total,
            "positions": self.positions,
            "shortest": self.shortest,
            "asked": self.checked if self.asked is None else self.asked,
            "by_kind": self.by_kind,
            "kind_descriptions": {kind: FAILURE_KINDS[kind] for kind in self.by_kind},
            "by_depth": {str(depth): kinds for depth, kinds in sorted(self.by_depth.items())},
            "failures": [failure.to_dict() for failure in self.failures],
        }


def shallowest_first(failure: StrongFailure) -> tuple[int, str]:
    """The order failures are reported in: by depth, then board."""
    return failure.depth, failure.board


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


def replay(moves: tuple[int, ...] | list[int], game: Game) -> list[str]:
    """The boards after each move of a sequence from the empty board (o first)."""
    boards = [game.empty_board]
    for number, move in enumerate(moves):
        boards.append(play(boards[-1], move, mover_at(number)))
    return boards
