"""Searches made visible: the textbook algorithms, instrumented to count their work.

Every algorithm here searches from a board and reports the score it found (from o's side, on its
scale), the best moves, and its work: nodes (calls of the search function, the root, finished
boards and table hits included), finished boards, cutoffs, transposition-table probes, hits and
stores, the deepest ply and the wall time. Counts are per search: nothing is remembered between
searches. At the root every move is searched with the full window, so the best moves are exact.

Scales: `wdl` (-1, 0, 1), `shortest` (the shortest-victory score, -2..3 on 3x3), and for the
depth-limited searches `plies`: a win for o found p plies below the root scores 1000 - p, one for
x -(1000 - p), a draw 0. An unfinished board at the depth limit is an estimate, not a value on any
scale: 0 for `dls`, ai14s's score of its lines for the player who just moved (generalised to
K-long lines, `ttt_db.ais.searching.line_estimate`), signed to o's side, for `abdls` and `iddfs`; a node
whose value rests on an estimate is marked as one in a trace.

A search may write a trace (`ttt_db.search.trace`): an `enter` and an `exit` event per node, in visit
order, with the window on entry, the value, cutoffs and what the table did.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Final, Literal, Protocol

from ttt_db.ais.searching import ESTIMATE_LIMIT, WIN_SCORE, line_estimate, shortest_victory_range
from ttt_db.errors import SearchTimeout, UnknownAlgorithmError, WorkLimitError
from ttt_db.game.definition import TICTACTOE, Game
from ttt_db.game.rules import EMPTY, final_score, legal_moves, other, play, side_to_move, status
from ttt_db.store.position import Position

Scale = Literal["wdl", "shortest", "plies"]


class Tracer(Protocol):
    """Receives a search's nodes in visit order (`ttt_db.search.trace.TraceWriter` writes them)."""

    def enter(
        self, node: int, parent: int | None, board: str, ply: int, move: int | None, alpha: int | None, beta: int | None
    ) -> None: ...

    def exit(
        self, node: int, value: int, cutoff: bool, probe: str | None, store: str | None, estimated: bool
    ) -> None: ...


Table = Literal["none", "exact", "bounds"]


@dataclass
class SearchCounts:
    nodes: int = 0
    terminal: int = 0
    cutoffs: int = 0
    table_probes: int = 0
    table_hits_exact: int = 0
    table_hits_bound: int = 0
    table_stores: int = 0
    deepest_ply: int = 0


@dataclass(frozen=True)
class SearchSpec:
    """One algorithm: what it keeps, whether it prunes, where it stops."""

    name: str
    summary: str
    shortest: bool = False
    pruning: bool = False
    table: Table = "none"
    depth: int | None = None  # plies searched below a root move; None: to the end
    evaluate_lines: bool = False

    @property
    def scale(self) -> Scale:
        if self.depth is not None:
            return "plies"
        return "shortest" if self.shortest else "wdl"


@dataclass
class SearchReport:
    algorithm: str
    board: str  # o first
    scale: Scale
    score: int  # from o's side
    best_moves: tuple[int, ...]
    counts: SearchCounts
    seconds: float
    completed_depth: int | None = None  # iterative deepening: the deepest iteration completed
    iterations: list[int] = field(default_factory=list)  # nodes per completed iteration

    def to_dict(self) -> dict[str, Any]:
        return {
            "algorithm": self.algorithm,
            "board": self.board,
            "scale": self.scale,
            "score": self.score,
            "best_moves": list(self.best_moves),
            **asdict(self.counts),
            "seconds": self.seconds,
            "completed_depth": self.completed_depth,
        }


FULL_SEARCHES: Final[tuple[SearchSpec, ...]] = (
    SearchSpec("minimax", "plain minimax, no memory: from the empty board, the whole tree"),
    SearchSpec("minimax-tt", "minimax with a table of exact values by board", table="exact"),
    SearchSpec(
        "alphabeta", "alpha-beta with a bounds table over the board's symmetric images", pruning=True, table="bounds"
    ),
    SearchSpec("alphabeta-plain", "alpha-beta without a table", pruning=True),
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
PARAMETERISED = {
    "dls": "depth-limited minimax, N plies below each root move; unfinished boards there score 0",
    "abdls": "depth-limited alpha-beta; unfinished boards at the limit scored by ai14s",
    "iddfs": "iterative deepening: abdls@0, @1, ... until SECONDS run out",
}
_BY_NAME = {spec.name: spec for spec in FULL_SEARCHES}
ALL_ALGORITHMS: Final = (*(spec.name for spec in FULL_SEARCHES), "dls@3", "abdls@3", "iddfs@0.1")


class _Search:
    def __init__(
        self,
        spec: SearchSpec,
        game: Game,
        deadline: float | None = None,
        clock: Callable[[], float] = time.perf_counter,
        tracer: Tracer | None = None,
        node_limit: int | None = None,
    ) -> None:
        self.spec = spec
        self.node_limit = node_limit
        self.game = game
        self.tracer = tracer
        self.estimated = False
        self.counts = SearchCounts()
        self.table: dict[str, tuple[int, int]] = {}
        self.low, self.high = shortest_victory_range(game) if spec.shortest else (-1, 1)
        if spec.depth is not None:
            self.low, self.high = -WIN_SCORE, WIN_SCORE
        self.deadline = deadline
        self.clock = clock

    def _store(self, board: str, bounds: tuple[int, int]) -> None:
        self.counts.table_stores += 1
        if self.spec.table == "bounds":
            for perm in self.game.transforms:
                self.table["".join([board[i] for i in perm])] = bounds
        else:
            self.table[board] = bounds

    def _finished(self, board: str, ply: int) -> int | None:
        board_status = status(board, self.game)
        if board_status == "playing":
            return None
        if self.spec.depth is None:
            return final_score(
                board_status, len(board) - board.count(EMPTY), shortest=self.spec.shortest, cells=self.game.cells
            )
        if board_status == "draw":
            return 0
        return WIN_SCORE - ply if board_status == "o" else ply - WIN_SCORE

    def _leaf(self, board: str) -> int:
        if not self.spec.evaluate_lines:
            return 0
        just_moved = other(side_to_move(board))
        score = line_estimate(board, just_moved, self.game)
        return score if just_moved == "o" else -score

    def node(
        self, board: str, ply: int, alpha: int, beta: int, parent: int | None = None, move: int | None = None
    ) -> int:
        """The value of `board` from o's side, within the window (alpha, beta) when pruning.
        Sets `self.estimated` when the value rests on an estimate at the depth limit."""
        counts = self.counts
        counts.nodes += 1
        node_id = counts.nodes
        if self.node_limit is not None and node_id > self.node_limit:
            raise WorkLimitError(f"the search visits more than {self.node_limit:,} nodes; start from a fuller board")
        counts.deepest_ply = max(counts.deepest_ply, ply)
        if self.deadline is not None and self.clock() > self.deadline:
            raise SearchTimeout
        tracer = self.tracer
        if tracer is not None:
            tracer.enter(
                node_id,
                parent,
                board,
                ply,
                move,
                alpha if self.spec.pruning else None,
                beta if self.spec.pruning else None,
            )
        value, cutoff, probe, store = self._value(board, ply, alpha, beta, node_id)
        if tracer is not None:
            tracer.exit(node_id, value, cutoff, probe, store, self.estimated)
        return value

    def _value(
        self, board: str, ply: int, alpha: int, beta: int, node_id: int
    ) -> tuple[int, bool, str | None, str | None]:
        """(value, cut off, table probe result, table store kind) of one node."""
        counts = self.counts
        self.estimated = False
        original_alpha, original_beta = alpha, beta
        probe: str | None = None
        if self.spec.table != "none":
            counts.table_probes += 1
            probe = "miss"
            entry = self.table.get(board)
            if entry is not None:
                lower, upper = entry
                if lower == upper:
                    counts.table_hits_exact += 1
                    return upper, False, "exact", None
                if upper <= alpha or lower >= beta:
                    counts.table_hits_bound += 1
                    return (upper if upper <= alpha else lower), False, "bound", None
                alpha, beta = max(alpha, lower), min(beta, upper)
                probe = "narrowed"
        finished = self._finished(board, ply)
        if finished is not None:
            counts.terminal += 1
            if self.spec.table != "none":
                self._store(board, (finished, finished))
                return finished, False, probe, "exact"
            return finished, False, probe, None
        if self.spec.depth is not None and ply > self.spec.depth:
            self.estimated = True
            return self._leaf(board), False, probe, None
        mover = side_to_move(board)
        maximising = mover == "o"
        best = self.low - 1 if maximising else self.high + 1
        estimated = cutoff = False
        for move in legal_moves(board, self.game):
            value = self.node(play(board, move, mover), ply + 1, alpha, beta, node_id, move)
            estimated = estimated or self.estimated
            if maximising:
                best = max(best, value)
                if self.spec.pruning:
                    alpha = max(alpha, best)
            else:
                best = min(best, value)
                if self.spec.pruning:
                    beta = min(beta, best)
            if self.spec.pruning and alpha >= beta:
                counts.cutoffs += 1
                cutoff = True
                break
        self.estimated = estimated
        store = None
        if self.spec.table == "exact":
            store = "exact"
        elif self.spec.table == "bounds":
            store = "upper" if best <= original_alpha else "lower" if best >= original_beta else "exact"
        if store is not None:
            bounds = {"exact": (best, best), "upper": (self.low, best), "lower": (best, self.high)}[store]
            self._store(board, bounds)
        return best, cutoff, probe, store

    def root(self, board: str) -> tuple[int, tuple[int, ...]]:
        """The root as one node whose every move is searched with the full window (so it has no
        window of its own in a trace)."""
        counts = self.counts
        counts.nodes += 1
        root_id = counts.nodes
        tracer = self.tracer
        if tracer is not None:
            tracer.enter(root_id, None, board, 0, None, None, None)
        finished = self._finished(board, 0)
        if finished is not None:
            counts.terminal += 1
            if tracer is not None:
                tracer.exit(root_id, finished, False, None, None, False)
            return finished, ()
        mover = side_to_move(board)
        scored = []
        estimated = False
        for move in legal_moves(board, self.game):
            scored.append((move, self.node(play(board, move, mover), 1, self.low - 1, self.high + 1, root_id, move)))
            estimated = estimated or self.estimated
        sign = 1 if mover == "o" else -1
        top = max(sign * value for _, value in scored)
        if tracer is not None:
            tracer.exit(root_id, sign * top, False, None, None, estimated)
        return sign * top, tuple(move for move, value in scored if sign * value == top)


def parse_algorithm(name: str, game: Game = TICTACTOE) -> tuple[SearchSpec | None, float | None]:
    """(spec, seconds): a full search, `dls@N`/`abdls@N` (a spec, N at most the game's cells), or
    `iddfs@SECONDS` (seconds). UnknownAlgorithmError (a ValueError) naming the algorithms otherwise."""
    key = name.strip().lower()
    if key in _BY_NAME:
        return _BY_NAME[key], None
    base, _, parameter = key.partition("@")
    if base in ("dls", "abdls"):
        if not parameter.isdigit() or int(parameter) > game.cells:
            raise UnknownAlgorithmError(name, f"{base} needs a depth from 0 to {game.cells}, as in {base}@3")
        depth = int(parameter)
        summary = PARAMETERISED[base]
        return SearchSpec(key, summary, pruning=base == "abdls", depth=depth, evaluate_lines=base == "abdls"), None
    if base == "iddfs":
        try:
            seconds = float(parameter)
        except ValueError:
            seconds = 0.0
        if not seconds > 0:
            raise UnknownAlgorithmError(name, "iddfs needs a positive number of seconds, as in iddfs@0.1")
        return None, seconds
    known = ", ".join([*_BY_NAME, "dls@N", "abdls@N", "iddfs@SECONDS"])
    raise UnknownAlgorithmError(name, f"the algorithms are {known}")


def run_search(
    algorithm: str,
    board: str,
    *,
    game: Game = TICTACTOE,
    clock: Callable[[], float] = time.perf_counter,
    tracer: Tracer | None = None,
    node_limit: int | None = None,
) -> SearchReport:
    """Run one search from `board` of `game` (o first, game still on or over), telling `tracer`
    every node. UnknownAlgorithmError for an unknown algorithm; WorkLimitError when a full or
    depth-limited search would visit more than `node_limit` nodes (iterative deepening stops
    deepening there instead, as at its time limit)."""
    spec, seconds = parse_algorithm(algorithm, game)
    started = time.perf_counter()
    if spec is not None:
        search = _Search(spec, game, tracer=tracer, node_limit=node_limit)
        score, best = search.root(board)
        return SearchReport(spec.name, board, spec.scale, score, best, search.counts, time.perf_counter() - started)
    assert seconds is not None
    return _iterative_deepening(algorithm.strip().lower(), board, game, seconds, clock, started, tracer, node_limit)


class _IterationBuffer:
    """Holds one iteration's events, passed on only when the iteration completes (an abandoned
    iteration leaves no half-finished nodes in a trace). Node ids continue across iterations."""

    def __init__(self, tracer: Tracer, first_id: int) -> None:
        self.tracer = tracer
        self.offset = first_id
        self.events: list[tuple[bool, tuple[Any, ...]]] = []

    def enter(self, node: int, parent: int | None, *rest: Any) -> None:
        self.events.append((True, (node + self.offset, None if parent is None else parent + self.offset, *rest)))

    def exit(self, node: int, *rest: Any) -> None:
        self.events.append((False, (node + self.offset, *rest)))

    def flush(self) -> None:
        for is_enter, arguments in self.events:
            (self.tracer.enter if is_enter else self.tracer.exit)(*arguments)


def _iterative_deepening(
    name: str,
    board: str,
    game: Game,
    seconds: float,
    clock: Callable[[], float],
    started: float,
    tracer: Tracer | None = None,
    node_limit: int | None = None,
) -> SearchReport:
    deadline = clock() + seconds
    total = SearchCounts()
    score, best = 0, legal_moves(board, game)
    completed: int | None = None
    iterations: list[int] = []
    for depth in range(board.count(EMPTY)):
        buffer = None if tracer is None else _IterationBuffer(tracer, total.nodes)
        search = _Search(
            SearchSpec(name, PARAMETERISED["iddfs"], pruning=True, depth=depth, evaluate_lines=True),
            game,
            deadline,
            clock,
            buffer,
            None if node_limit is None else node_limit - total.nodes,
        )
        try:
            score, best = search.root(board)
        except (SearchTimeout, WorkLimitError):
            _add(total, search.counts)
            break
        if buffer is not None:
            buffer.flush()
        _add(total, search.counts)
        completed = depth
        iterations.append(search.counts.nodes)
    return SearchReport(name, board, "plies", score, best, total, time.perf_counter() - started, completed, iterations)


@dataclass(frozen=True)
class Agreement:
    """The search against the database's exact answer for the same board."""

    agrees: bool
    exact_score: int  # on the search's scale when it has an exact one, else the win/draw/loss score
    exact_best: tuple[int, ...]


def agreement(report: SearchReport, position: Position) -> Agreement:
    """Does the search agree with the stored `position` (o first)? Exact scales must match the
    score and the best moves; a depth-limited search must choose only best moves, and a win it
    proves (a score beyond any estimate) must be the real outcome."""
    if report.scale == "shortest":
        exact, best = position.sv_score, position.best_moves_shortest
        return Agreement(report.score == exact and report.best_moves == best, exact, best)
    exact, best = position.score, position.best_moves
    if report.scale == "wdl":
        return Agreement(report.score == exact and report.best_moves == best, exact, best)
    proven = abs(report.score) > ESTIMATE_LIMIT
    sign = (report.score > 0) - (report.score < 0)
    return Agreement((not proven or sign == exact) and set(report.best_moves) <= set(best), exact, best)


def _add(total: SearchCounts, counts: SearchCounts) -> None:
    for key, value in asdict(counts).items():
        if key == "deepest_ply":
            total.deepest_ply = max(total.deepest_ply, value)
        else:
            setattr(total, key, getattr(total, key) + value)
