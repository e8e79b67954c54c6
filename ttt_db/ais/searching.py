"""Search AIs that use no database, on the one engine (`ttt_db.search.engine`): what a lookup
replaces. Each answers every move with the best value its search finds, and keeps its engine (and
so its table) between moves.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from ttt_db.errors import SearchTimeout
from ttt_db.game.definition import TICTACTOE, Game
from ttt_db.game.rules import EMPTY, legal_moves
from ttt_db.search.algorithms import FULL_SEARCHES, depth_limited_spec
from ttt_db.search.engine import Engine, best_of

_SPECS = {spec.name: spec for spec in FULL_SEARCHES}


class FullSearchAI:
    """`minimax` (minimax with a table of exact values) or `alphabeta` (the bounds-table alpha-beta):
    every move searched with the window set to the score range, so every move's value is exact."""

    def __init__(self, algorithm: str, *, shortest: bool = False, game: Game = TICTACTOE) -> None:
        name = {"minimax": "minimax-tt", "alphabeta": "alphabeta"}[algorithm] + ("-shortest" if shortest else "")
        self.engine = Engine(_SPECS[name], game)

    def __call__(self, board: str) -> tuple[int, ...]:
        engine = self.engine
        return best_of(board, engine.move_values(board, (engine.low, engine.high)))[1]


class DepthLimited:
    """`dls@N` and `abdls@N`: every move searched `depth` plies below it. Without `evaluate_lines`,
    unfinished boards at the limit score 0 and there is no pruning; with it, alpha-beta scores them
    by their lines, each move's window starting just below the best so far."""

    def __init__(
        self,
        depth: int,
        *,
        evaluate_lines: bool = False,
        game: Game = TICTACTOE,
        deadline: float | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        name = f"{'abdls' if evaluate_lines else 'dls'}@{depth}"
        spec = depth_limited_spec(name, depth, evaluate_lines=evaluate_lines)
        self.engine = Engine(spec, game, deadline=deadline, clock=clock)

    def __call__(self, board: str) -> tuple[int, ...]:
        return best_of(board, self.engine.move_values(board, narrow=True))[1]


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
            search = DepthLimited(depth, evaluate_lines=True, game=self.game, deadline=deadline, clock=self.clock)
            try:
                answer = search(board)
            except SearchTimeout:
                break
        return answer
