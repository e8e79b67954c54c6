"""Search AIs that use no database: the search of the same name (`ttt_db.search.algorithms`) asked
for a move, on the one engine, from every board. A full search's AI keeps its engine (and so its
table) between moves.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from ttt_db.ais.protocol import AI
from ttt_db.game.definition import Game
from ttt_db.search.algorithms import chosen_moves, exact_moves, iterative_deepening, parse_algorithm
from ttt_db.search.engine import Engine, SearchSpec


class SearchAI:
    """A search of one spec asked for moves: a full search (`minimax-tt`, `alphabeta`, ...) searches
    every root move with the window set to the score range, so every move's value is exact
    (`exact_moves`); a depth-limited one (`dls@N`, `abdls@N`) answers with the moves its root
    chooses, as `ttt-db search` does (`chosen_moves`)."""

    def __init__(self, spec: SearchSpec, game: Game) -> None:
        self.engine = Engine(spec, game)

    def __call__(self, board: str) -> tuple[int, ...]:
        if self.engine.spec.depth is None:
            return exact_moves(self.engine, board)
        return chosen_moves(self.engine, board)[1]


class IterativeDeepening:
    """`iddfs@SECONDS`: the search `iddfs@SECONDS` from every board; the deepest completed
    iteration answers, or every legal move when none completed."""

    def __init__(self, seconds: float, *, game: Game, clock: Callable[[], float] = time.perf_counter) -> None:
        self.seconds = seconds
        self.game = game
        self.clock = clock  # injectable, so tests need not race the machine

    def __call__(self, board: str) -> tuple[int, ...]:
        report = iterative_deepening(f"iddfs@{self.seconds:g}", board, self.game, self.seconds, self.clock)
        return report.best_moves or ()


def search_ai(name: str, game: Game) -> tuple[AI, SearchSpec | None]:
    """The AI asking the search `name` (`minimax-tt`, `abdls@3`, `iddfs@0.1`, ...) for its moves, and
    the spec it runs for every answer (None for iddfs, whose depth is the clock's).
    UnknownAlgorithmError for a name that is no search."""
    spec, seconds = parse_algorithm(name, game)
    if spec is None:
        assert seconds is not None  # parse_algorithm gives a spec or seconds
        return IterativeDeepening(seconds, game=game), None
    return SearchAI(spec, game), spec
