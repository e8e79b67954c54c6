"""Search AIs that use no database: what a lookup replaces.

Each is a callable from a board (o first) to every move it might play, i.e. every move with the
best value its search finds. Scores are from o's side (o maximises) for `minimax`/`alphabeta`,
and from the side to move (negamax) for the depth-limited searches.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Final

from ttt_db.errors import SearchTimeout
from ttt_db.game.definition import MAX_CELLS, TICTACTOE, Game
from ttt_db.game.rules import EMPTY, Mark, final_score, legal_moves, other, play, side_to_move, status, winner
from ttt_db.search.evaluation import board_score

Score = int


def terminal_score(board: str, *, shortest: bool, game: Game = TICTACTOE) -> Score | None:
    """The score of a finished game from o's side, or None while it is on. With `shortest`,
    the shortest-victory score (on 3x3: (11 - m) / 2 for an o win at move m, (m - 10) / 2 for x)."""
    board_status = status(board, game)
    if board_status == "playing":
        return None
    return final_score(board_status, len(board) - board.count(EMPTY), shortest=shortest, cells=game.cells)


def _children(board: str, game: Game) -> list[tuple[int, str]]:
    mover = side_to_move(board)
    return [(move, play(board, move, mover)) for move in legal_moves(board, game)]


def _best_for_mover(board: str, scored: list[tuple[int, Score]]) -> tuple[int, ...]:
    sign = 1 if side_to_move(board) == "o" else -1
    top = max(sign * score for _, score in scored)
    return tuple(move for move, score in scored if sign * score == top)


class Minimax:
    """Full-depth minimax, remembering each board's value between calls."""

    def __init__(self, *, shortest: bool = False, game: Game = TICTACTOE) -> None:
        self.shortest = shortest
        self.game = game
        self.values: dict[str, Score] = {}

    def value(self, board: str) -> Score:
        known = self.values.get(board)
        if known is not None:
            return known
        score = terminal_score(board, shortest=self.shortest, game=self.game)
        if score is None:
            child_scores = [self.value(child) for _, child in _children(board, self.game)]
            score = max(child_scores) if side_to_move(board) == "o" else min(child_scores)
        self.values[board] = score
        return score

    def __call__(self, board: str) -> tuple[int, ...]:
        return _best_for_mover(board, [(move, self.value(child)) for move, child in _children(board, self.game)])


class AlphaBeta:
    """Alpha-beta over moves in index order with a (lower, upper) transposition table that is
    written for every symmetric image of a board (docs/ais.md)."""

    def __init__(self, *, shortest: bool = False, game: Game = TICTACTOE) -> None:
        self.shortest = shortest
        self.game = game
        self.low, self.high = shortest_victory_range(game) if shortest else (-1, 1)
        self.table: dict[str, tuple[Score, Score]] = {}

    def _store(self, board: str, bounds: tuple[Score, Score]) -> None:
        for perm in self.game.transforms:
            self.table["".join([board[i] for i in perm])] = bounds

    def search(self, board: str, alpha: Score, beta: Score) -> Score:
        entry = self.table.get(board)
        original_alpha, original_beta = alpha, beta
        if entry is not None:
            lower, upper = entry
            if lower == upper or upper <= alpha:
                return upper
            if lower >= beta:
                return lower
            alpha, beta = max(alpha, lower), min(beta, upper)
        score = terminal_score(board, shortest=self.shortest, game=self.game)
        if score is not None:
            self._store(board, (score, score))
            return score
        maximising = side_to_move(board) == "o"
        best = self.low - 1 if maximising else self.high + 1
        for _, child in _children(board, self.game):
            value = self.search(child, alpha, beta)
            if maximising:
                best = max(best, value)
                alpha = max(alpha, best)
            else:
                best = min(best, value)
                beta = min(beta, best)
            if alpha >= beta:
                break
        if best <= original_alpha:
            self._store(board, (self.low, best))
        elif best >= original_beta:
            self._store(board, (best, self.high))
        else:
            self._store(board, (best, best))
        return best

    def __call__(self, board: str) -> tuple[int, ...]:
        scored = [(move, self.search(child, self.low, self.high)) for move, child in _children(board, self.game)]
        return _best_for_mover(board, scored)


WIN_SCORE: Final = 1000  # a win found at ply p scores WIN_SCORE - p
ESTIMATE_LIMIT: Final = WIN_SCORE - MAX_CELLS - 2
"""Line estimates are clamped to +-ESTIMATE_LIMIT, below any win found in a search (on 3x3 they
never reach it: ai14s's scores lie within -600..600)."""


def shortest_victory_range(game: Game) -> tuple[Score, Score]:
    """(lowest, highest) shortest-victory score of `game`: x winning fastest, o winning fastest
    (on 3x3, -2 and 3)."""
    return final_score("x", min(2 * game.k, game.cells), shortest=True, cells=game.cells), final_score(
        "o", min(2 * game.k - 1, game.cells), shortest=True, cells=game.cells
    )


def line_estimate(board: str, just_moved: Mark, game: Game = TICTACTOE) -> Score:
    """ai14s's board score for the player who just moved, generalised to K-long lines
    (`ttt_db.search.evaluation.board_score`), clamped below any proven win."""
    return max(-ESTIMATE_LIMIT, min(ESTIMATE_LIMIT, board_score(board, just_moved, game)))


class DepthLimited:
    """`dls@N` and `abdls@N`: negamax to `depth` plies below the candidate move.

    Without `evaluate_lines`, unfinished boards at the limit score 0 and there is no pruning
    (minimax in the style of the "Deep Learning and the Game of Go" bot); with it, alpha-beta
    scores them by their lines, ai14s's score for the player who just moved (`line_estimate`).
    Sooner wins score more: a win at ply p scores WIN_SCORE - p.
    """

    def __init__(
        self,
        depth: int,
        *,
        evaluate_lines: bool = False,
        game: Game = TICTACTOE,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.depth = depth
        self.game = game
        self.evaluate_lines = evaluate_lines
        self.deadline: float | None = None
        self.clock = clock

    def _leaf(self, board: str, mover: Mark) -> Score:
        if not self.evaluate_lines:
            return 0
        return -line_estimate(board, other(mover), self.game)

    def negamax(self, board: str, mover: Mark, depth: int, ply: int, alpha: Score, beta: Score) -> Score:
        """Value of `board` for `mover`, the side to move, `ply` plies below the root."""
        if self.deadline is not None and self.clock() > self.deadline:
            raise SearchTimeout
        if winner(board, self.game) is not None:
            return ply - WIN_SCORE  # the previous mover has just won
        if EMPTY not in board:
            return 0
        if depth == 0:
            return self._leaf(board, mover)
        opponent = other(mover)
        best = -WIN_SCORE - 1
        for move in range(len(board)):
            if board[move] != EMPTY:
                continue
            child = board[:move] + mover + board[move + 1 :]
            value = -self.negamax(child, opponent, depth - 1, ply + 1, -beta, -alpha)
            if value > best:
                best = value
                if self.evaluate_lines and value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        return best

    def __call__(self, board: str) -> tuple[int, ...]:
        mover = side_to_move(board)
        opponent = other(mover)
        scored: list[tuple[int, Score]] = []
        top = -WIN_SCORE - 1
        for move in legal_moves(board, self.game):
            child = board[:move] + mover + board[move + 1 :]
            # a window just below the best so far keeps ties exact while pruning worse moves
            value = -self.negamax(child, opponent, self.depth, 1, -(WIN_SCORE + 1), -(top - 1))
            scored.append((move, value))
            top = max(top, value)
        return tuple(move for move, value in scored if value == top)


class IterativeDeepening:
    """`iddfs@SECONDS`: abdls@0, @1, ... until the time runs out; the deepest completed
    iteration answers, or every legal move when none completed."""

    def __init__(
        self, seconds: float, *, game: Game = TICTACTOE, clock: Callable[[], float] = time.perf_counter
    ) -> None:
        self.seconds = seconds
        self.game = game
        self.clock = clock  # injectable, so tests need not race the machine

    def __call__(self, board: str) -> tuple[int, ...]:
        deadline = self.clock() + self.seconds
        answer = legal_moves(board, self.game)
        for depth in range(board.count(EMPTY)):
            search = DepthLimited(depth, evaluate_lines=True, game=self.game, clock=self.clock)
            search.deadline = deadline
            try:
                answer = search(board)
            except SearchTimeout:
                break
        return answer
