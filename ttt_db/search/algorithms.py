"""The searches `ttt-db search` runs, as the literature defines them, and what they report.

Every algorithm runs the one engine (`ttt_db.search.engine`) from a board and reports the value
its root search proves (from the first player's side, on its scale) and its work: nodes (calls of
the search function, the root, finished boards and table hits included), finished boards, cutoffs,
table probes, hits and stores, the deepest ply and the wall time. Nothing is remembered between
searches.

- The full searches (`minimax`, `minimax-tt`, `alphabeta`, `alphabeta-plain` and their
  `-shortest` forms) search the root as an ordinary node: `alphabeta` with the window set to the
  score range, (-1, 1) or (-2, 3) on 3x3's shortest-victory scale, `alphabeta-plain` with the open
  window, as AIMA's `alpha_beta_search` does. A pruned root proves its value, not every best move:
  the best moves these report are the database's (`best_moves_from` says so).
- The depth-limited searches (`dls@N`, `abdls@N`, `iddfs@SECONDS`) choose moves: the root searches
  every move, each with a window starting just below the mover's best so far (ties stay exact, worse
  moves are cut off), and the moves with the top value are the search's own (`chosen_moves`).

The AIs of the same names (`ttt_db.ais.searching`) run these specs and these roots; a full search's
AI searches every root move with the window set to the score range (`exact_moves`), since it must
know every best move, not only the root's value.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Final, Literal

from ttt_db.errors import SearchTimeout, UnknownAlgorithmError, WorkLimitError
from ttt_db.game.definition import TICTACTOE, Game
from ttt_db.game.rules import EMPTY, legal_moves
from ttt_db.search.engine import ESTIMATE_LIMIT, Engine, Scale, SearchCounts, SearchSpec, Tracer, best_of
from ttt_db.search.parameters import PARAMETERISED_EXAMPLES, parse_depth, parse_seconds
from ttt_db.search.trace import Enter, Exit

if TYPE_CHECKING:
    from ttt_db.game.board import Board
    from ttt_db.position import Position
    from ttt_db.store.database import SolutionDatabase

FULL_SEARCHES: Final[tuple[SearchSpec, ...]] = (
    SearchSpec("minimax", "plain minimax, no memory: from the empty board, the whole tree"),
    SearchSpec("minimax-tt", "minimax with a table of exact values by board", table="exact"),
    SearchSpec(
        "alphabeta",
        "alpha-beta with a bounds table over the board's symmetric images, root window the score range",
        pruning=True,
        table="bounds",
    ),
    SearchSpec("alphabeta-plain", "textbook alpha-beta without a table, root window open", pruning=True),
    SearchSpec("minimax-shortest", "plain minimax on shortest-victory scores", shortest=True),
    SearchSpec("minimax-tt-shortest", "minimax with a table, shortest-victory scores", shortest=True, table="exact"),
    SearchSpec(
        "alphabeta-shortest",
        "alpha-beta with a bounds table, shortest-victory scores",
        shortest=True,
        pruning=True,
        table="bounds",
    ),
    SearchSpec(
        "alphabeta-plain-shortest", "alpha-beta without a table, shortest-victory scores", shortest=True, pruning=True
    ),
)
PARAMETERISED: Final = {
    "dls": "depth-limited minimax, N plies below each root move; unfinished boards there score 0",
    "abdls": "depth-limited alpha-beta; unfinished boards at the limit scored by ai14s",
    "iddfs": "iterative deepening: abdls@0, @1, ... until SECONDS run out",
}
_BY_NAME: Final = {spec.name: spec for spec in FULL_SEARCHES}
ALL_ALGORITHMS: Final = (*(spec.name for spec in FULL_SEARCHES), *PARAMETERISED_EXAMPLES)
BestMovesFrom = Literal["search", "database"]


def depth_limited_spec(name: str, depth: int, *, evaluate_lines: bool) -> SearchSpec:
    """`dls@N` (no pruning, unfinished boards at the limit score 0) or `abdls@N` (alpha-beta, unfinished
    boards scored by their lines)."""
    base = "abdls" if evaluate_lines else "dls"
    return SearchSpec(name, PARAMETERISED[base], pruning=evaluate_lines, depth=depth, evaluate_lines=evaluate_lines)


@dataclass
class SearchReport:
    algorithm: str
    board: str  # as searched: o first
    scale: Scale
    score: int  # the value the search proves (or estimates) for the board, from o's side
    best_moves: tuple[int, ...] | None  # the moves the search chooses; None for the full searches
    counts: SearchCounts
    seconds: float
    completed_depth: int | None = None  # iterative deepening: the deepest iteration completed
    iterations: list[int] = field(default_factory=list)  # nodes per completed iteration


def parse_algorithm(name: str, game: Game) -> tuple[SearchSpec | None, float | None]:
    """(spec, seconds): a full search, `dls@N`/`abdls@N` (a spec, N at most the game's cells), or
    `iddfs@SECONDS` (seconds). UnknownAlgorithmError (an InputError) naming the algorithms otherwise."""
    key = name.strip().lower()
    if key in _BY_NAME:
        return _BY_NAME[key], None
    base, _, parameter = key.partition("@")
    if base in ("dls", "abdls"):
        depth = parse_depth(parameter, game)
        if depth is None:
            raise UnknownAlgorithmError(name, f"{base} needs a depth from 0 to {game.cells}, as in {base}@3")
        return depth_limited_spec(key, depth, evaluate_lines=base == "abdls"), None
    if base == "iddfs":
        seconds = parse_seconds(parameter)
        if seconds is None:
            raise UnknownAlgorithmError(name, "iddfs needs a number of seconds above 0, as in iddfs@0.1")
        return None, seconds
    known = ", ".join([*_BY_NAME, "dls@N", "abdls@N", "iddfs@SECONDS"])
    raise UnknownAlgorithmError(name, f"the algorithms are {known}")


def scale_of(algorithm: str, game: Game) -> Scale:
    """The scale an algorithm's values are on."""
    spec, _ = parse_algorithm(algorithm, game)
    return spec.scale if spec is not None else "plies"


def run_search(
    algorithm: str,
    board: str,
    *,
    game: Game = TICTACTOE,
    clock: Callable[[], float] = time.perf_counter,
    tracer: Tracer | None = None,
    node_limit: int | None = None,
    time_limit: float | None = None,
) -> SearchReport:
    """Run one search from `board` of `game` (o first, game still on or over), telling `tracer`
    every node. UnknownAlgorithmError for an unknown algorithm; WorkLimitError when a full or
    depth-limited search would visit more than `node_limit` nodes, SearchTimeout when it runs
    past `time_limit` seconds of `clock` (iterative deepening stops deepening at either instead,
    as at its own time limit)."""
    spec, seconds = parse_algorithm(algorithm, game)
    started = time.perf_counter()
    if spec is None:
        assert seconds is not None
        return iterative_deepening(algorithm.strip().lower(), board, game, seconds, clock, tracer, node_limit)
    deadline = None if time_limit is None else clock() + time_limit
    engine = Engine(spec, game, tracer=tracer, node_limit=node_limit, deadline=deadline, clock=clock)
    if spec.depth is None:
        window = (engine.low, engine.high) if spec.table == "bounds" else engine.open_window
        score = engine.search(board, *window)
        return SearchReport(spec.name, board, spec.scale, score, None, engine.counts, time.perf_counter() - started)
    score, best = chosen_moves(engine, board)
    return SearchReport(spec.name, board, spec.scale, score, best, engine.counts, time.perf_counter() - started)


def chosen_moves(engine: Engine, board: str) -> tuple[int, tuple[int, ...]]:
    """The depth-limited root: (score from o's side, the moves with the mover's top score), every
    move searched with a window just below the best so far; a finished board's own score and no move."""
    scored = engine.move_scores(board, narrow=True)
    finished = engine.finished_value(board, 0)
    if finished is not None:
        return finished, ()
    return best_of(board, scored)


def exact_moves(engine: Engine, board: str) -> tuple[int, ...]:
    """A full search's AI's root: every move of an unfinished `board` searched with the window set
    to the score range, so every move's score is exact; the moves with the mover's top score."""
    return best_of(board, engine.move_scores(board, (engine.low, engine.high)))[1]


class _IterationBuffer:
    """Holds one iteration's events, passed on only when the iteration completes (an abandoned
    iteration leaves no half-finished nodes in a trace)."""

    def __init__(self, tracer: Tracer) -> None:
        self.tracer = tracer
        self.events: list[Enter | Exit] = []

    def __call__(self, event: Enter | Exit) -> None:
        self.events.append(event)

    def flush(self) -> None:
        for event in self.events:
            self.tracer(event)


def iterative_deepening(
    name: str,
    board: str,
    game: Game,
    seconds: float,
    clock: Callable[[], float] = time.perf_counter,
    tracer: Tracer | None = None,
    node_limit: int | None = None,
) -> SearchReport:
    """`iddfs@SECONDS`: abdls@0, @1, ... until `seconds` of `clock` (or `node_limit` nodes) run out;
    the deepest completed iteration answers (every legal move when none completed). An abandoned
    iteration's events never reach `tracer`."""
    started = time.perf_counter()
    deadline = clock() + seconds
    total = SearchCounts()
    score, best = 0, legal_moves(board, game)
    completed: int | None = None
    iterations: list[int] = []
    for depth in range(board.count(EMPTY)):
        buffer = None if tracer is None else _IterationBuffer(tracer)
        limit = None if node_limit is None else node_limit - total.nodes
        spec = depth_limited_spec(name, depth, evaluate_lines=True)
        engine = Engine(
            spec, game, tracer=buffer, node_limit=limit, deadline=deadline, clock=clock, first_id=total.nodes
        )
        try:
            score, best = chosen_moves(engine, board)
        except (SearchTimeout, WorkLimitError):
            total.add(engine.counts)
            break
        if buffer is not None:
            buffer.flush()
        total.add(engine.counts)
        completed = depth
        iterations.append(engine.counts.nodes)
    return SearchReport(name, board, "plies", score, best, total, time.perf_counter() - started, completed, iterations)


@dataclass(frozen=True)
class Agreement:
    """The search against the database's exact answer for the same board."""

    agrees: bool
    exact_score: int  # on the search's scale when it has an exact one, else the win/draw/loss score
    exact_best: tuple[int, ...]


def agreement(report: SearchReport, position: Position) -> Agreement:
    """Does the search agree with the stored `position` (o first)? A full search must prove the exact
    value; a depth-limited search must choose only best moves, and a win it proves (a value beyond
    any estimate) must be the real outcome."""
    if report.scale == "shortest":
        return Agreement(report.score == position.sv_score, position.sv_score, position.best_moves_shortest)
    exact, best = position.score, position.best_moves
    if report.scale == "wdl":
        return Agreement(report.score == exact, exact, best)
    proven = abs(report.score) > ESTIMATE_LIMIT
    sign = (report.score > 0) - (report.score < 0)
    chosen = report.best_moves or ()
    return Agreement((not proven or sign == exact) and set(chosen) <= set(best), exact, best)


@dataclass(frozen=True)
class SearchAnswer:
    """A search from the user's board, beside the database's answer: what `ttt-db search --json`
    and `/api/search` send."""

    board: Board  # as the user gave it
    report: SearchReport  # searched with o first
    exact: Agreement

    @property
    def best_moves_from(self) -> BestMovesFrom:
        return "database" if self.report.best_moves is None else "search"

    @property
    def best_moves(self) -> tuple[int, ...]:
        return self.report.best_moves if self.report.best_moves is not None else self.exact.exact_best

    def _repr_html_(self) -> str:
        """The search in a notebook: its board with the moves it chose ringed, its score beside
        the database's, and its work."""
        from html import escape

        from ttt_db.game.drawing import board_svg, table

        report = self.report
        chosen = "the database's best moves" if report.best_moves is None else "its choice"
        svg = board_svg(
            self.board.cells,
            self.board.game,
            rings=dict.fromkeys(self.best_moves, "win"),
            winning=self.board.winning_cells,
            title=f"{report.algorithm} from {self.board}",
        )
        verdict = "agrees with the database" if self.exact.agrees else "DISAGREES with the database"
        rows = [
            (
                "score",
                f"{report.score} ({report.scale} scale, {self.board.first}'s side); exact {self.exact.exact_score}",
            ),
            ("ringed", chosen),
            ("nodes", f"{report.counts.nodes:,}"),
            ("cutoffs", f"{report.counts.cutoffs:,}"),
            ("table hits", f"{report.counts.table_hits_exact + report.counts.table_hits_bound:,}"),
            ("seconds", f"{report.seconds:.3f}"),
        ]
        head = f"<p><b>{escape(report.algorithm)}</b> from {escape(str(self.board))}: {verdict}</p>"
        return f"<div>{head}{svg}{table(rows)}</div>"

    def to_document(self) -> dict[str, Any]:
        report = self.report
        return {
            "algorithm": report.algorithm,
            "board": self.board.cells,
            "first": self.board.first,
            "game": self.board.game.name,
            "scale": report.scale,
            "score": report.score,
            "score_viewpoint": self.board.first,
            "best_moves": list(self.best_moves),
            "best_moves_from": self.best_moves_from,
            **asdict(report.counts),
            "seconds": report.seconds,
            "completed_depth": report.completed_depth,
            "iterations": report.iterations,
            "database": {"score": self.exact.exact_score, "best_moves": list(self.exact.exact_best)},
            "agrees": self.exact.agrees,
        }


def search_board(
    database: SolutionDatabase,
    algorithm: str,
    board: Board,
    *,
    tracer: Tracer | None = None,
    node_limit: int | None = None,
    time_limit: float | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> SearchAnswer:
    """Run `algorithm` from the user's `board` (searched with o first) and hold it to the database."""
    report = run_search(
        algorithm,
        board.stored_cells,
        game=database.game,
        tracer=tracer,
        node_limit=node_limit,
        time_limit=time_limit,
        clock=clock,
    )
    return SearchAnswer(board, report, agreement(report, database.lookup(board.stored_cells)))


def shown_search(game: Game) -> str:
    """The search a page shows first on `game`'s boards: alphabeta where its whole tree is small
    (at most 9 cells), else the depth-limited abdls@3, which any board of any game answers within
    the web's node limits."""
    return "alphabeta" if game.cells <= 9 else "abdls@3"


def algorithms_document() -> list[dict[str, str]]:
    """Every algorithm `ttt-db search --all` runs, with what it is."""
    summaries = {spec.name: spec.summary for spec in FULL_SEARCHES}
    summaries |= {name: PARAMETERISED[name.partition("@")[0]] for name in ALL_ALGORITHMS if "@" in name}
    return [{"name": name, "summary": summaries[name]} for name in ALL_ALGORITHMS]
