"""The one search engine: minimax and alpha-beta over any m,n,k game, with an optional table, an
optional depth limit, counts of its work and an optional trace. The AIs (`ttt_db.ais.searching`),
`ttt-db search` (`ttt_db.search.algorithms`), traces and the page all run it.

Scores are from o's side (o maximises, x minimises) on the spec's scale (a trace records a node's
score as its `value`; a value, win/draw/loss, is what `ttt_db.game.rules` calls one):
- `wdl`: 1, 0, -1;
- `shortest`: the shortest-victory score, -2..3 on 3x3 (`ttt_db.game.rules.final_score`);
- `plies` (depth-limited searches): a win for o found p plies below the root scores
  WIN_SCORE - p, one for x -(WIN_SCORE - p), a draw 0; an unfinished board at the depth limit is an
  estimate (0, or ai14s's score of its lines with `evaluate_lines`), marked as one in a trace.

One node is one call of `Engine.search`: a finished board is scored first and never stored; then
the table is probed; then the moves are searched in index order, alpha-beta pruning when the spec
prunes (fail-soft: the value may lie outside the window, as a bound). The bounds table is the
seed article's: a (lower, upper) pair per board, written for every symmetric image; a stored
bound keeps the other bound already in the entry.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, fields
from math import perm
from typing import Final, Literal, Protocol

from ttt_db.errors import SearchTimeout, WorkLimitError
from ttt_db.game.definition import Game
from ttt_db.game.rules import (
    EMPTY,
    Mark,
    final_score,
    legal_moves,
    other,
    play,
    score_seen_by,
    side_to_move,
    status,
)
from ttt_db.game.symmetry import symmetric_images
from ttt_db.ranked.slots import MAX_CELLS
from ttt_db.search.evaluation import board_score
from ttt_db.search.trace import Enter, Exit, Probe, Store

Scale = Literal["wdl", "shortest", "plies"]
Table = Literal["none", "exact", "bounds"]

WIN_SCORE: Final = 1000
"""On the `plies` scale a win p plies below the root scores WIN_SCORE - p."""
ESTIMATE_LIMIT: Final = WIN_SCORE - MAX_CELLS - 2
"""Line estimates are clamped to +-ESTIMATE_LIMIT, below any win found in a search (on 3x3 they
never reach it: ai14s's scores lie within -600..600)."""


class Tracer(Protocol):
    """Receives a search's trace events in visit order (`ttt_db.search.trace.TraceWriter` writes them)."""

    def __call__(self, event: Enter | Exit) -> None: ...


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

    def score_range(self, game: Game) -> tuple[int, int]:
        """(lowest, highest) score a search of `game` on this spec's scale can return."""
        if self.depth is not None:
            return -WIN_SCORE, WIN_SCORE
        return shortest_victory_range(game) if self.shortest else (-1, 1)


@dataclass
class SearchCounts:
    """A search's work. `nodes` counts calls of the search function: the root, finished boards
    and table hits included."""

    nodes: int = 0
    terminal: int = 0
    cutoffs: int = 0
    table_probes: int = 0
    table_hits_exact: int = 0
    table_hits_bound: int = 0
    table_stores: int = 0
    deepest_ply: int = 0

    def add(self, other: SearchCounts) -> None:
        """Add `other`'s work to this (the deepest ply is the larger)."""
        for name in (field.name for field in fields(self)):
            mine, theirs = getattr(self, name), getattr(other, name)
            setattr(self, name, max(mine, theirs) if name == "deepest_ply" else mine + theirs)


def shortest_victory_range(game: Game) -> tuple[int, int]:
    """(lowest, highest) shortest-victory score of `game`: x winning fastest, o winning fastest
    (on 3x3, -2 and 3)."""
    fastest_x = final_score("x", min(2 * game.k, game.cells), shortest=True, cells=game.cells)
    fastest_o = final_score("o", min(2 * game.k - 1, game.cells), shortest=True, cells=game.cells)
    return fastest_x, fastest_o


def line_estimate(board: str, just_moved: Mark, game: Game) -> int:
    """ai14s's board score for the player who just moved, generalised to K-long lines
    (`ttt_db.search.evaluation.board_score`), clamped below any proven win."""
    score = board_score(board, just_moved, game)
    return max(-ESTIMATE_LIMIT, min(ESTIMATE_LIMIT, score))


def best_of(board: str, scored: list[tuple[int, int]]) -> tuple[int, tuple[int, ...]]:
    """(the mover's top score from o's side, every move with it) among `scored`, (move, score from
    o's side) pairs of an unfinished board's moves."""
    mover = side_to_move(board)
    top = max(score_seen_by(score, mover) for _, score in scored)
    return score_seen_by(top, "o", mover), tuple(move for move, score in scored if score_seen_by(score, mover) == top)


class Engine:
    """A search of one spec over one game. The table and the counts live as long as the engine:
    an AI keeps one engine between moves, `ttt-db search` makes one per search."""

    def __init__(
        self,
        spec: SearchSpec,
        game: Game,
        *,
        tracer: Tracer | None = None,
        node_limit: int | None = None,
        deadline: float | None = None,
        clock: Callable[[], float] = time.perf_counter,
        first_id: int = 0,
    ) -> None:
        self.spec = spec
        self.game = game
        self.tracer = tracer
        self.node_limit = node_limit
        self.deadline = deadline
        self.clock = clock
        self.first_id = first_id  # node ids continue from here (iterative deepening's iterations)
        self.counts = SearchCounts()
        self.table: dict[str, tuple[int, int]] = {}
        self.low, self.high = spec.score_range(game)
        self.estimated = False  # did the last node's value rest on an estimate at the depth limit?

    @property
    def open_window(self) -> tuple[int, int]:
        """A window no score reaches: it prunes exactly as (-inf, +inf) does, and stays a number."""
        return self.low - 1, self.high + 1

    def search(
        self, board: str, alpha: int, beta: int, ply: int = 0, parent: int | None = None, move: int | None = None
    ) -> int:
        """The score of `board` from o's side, within (alpha, beta) when the spec prunes: one node
        (a trace calls it the node's `value`)."""
        counts = self.counts
        counts.nodes += 1
        node_id = self.first_id + counts.nodes
        if self.node_limit is not None and counts.nodes > self.node_limit:
            raise WorkLimitError(f"the search visits more than {self.node_limit:,} nodes; start from a fuller board")
        if ply > counts.deepest_ply:
            counts.deepest_ply = ply
        if self.deadline is not None and self.clock() > self.deadline:
            raise SearchTimeout(f"the search's deadline passed at node {node_id:,}")
        tracer = self.tracer
        if tracer is None:
            return self._value(board, ply, alpha, beta, node_id)[0]
        pruning = self.spec.pruning
        tracer(Enter(node_id, parent, board, ply, move, alpha if pruning else None, beta if pruning else None))
        value, cutoff, probe, store = self._value(board, ply, alpha, beta, node_id)
        tracer(Exit(node_id, value, cutoff, probe, store, self.estimated))
        return value

    def move_scores(
        self, board: str, window: tuple[int, int] | None = None, *, narrow: bool = False
    ) -> list[tuple[int, int]]:
        """(move, score from o's side) for every legal move of `board`, each searched as a node below
        `board` (itself counted and traced as one node without a window) with `window`, the open
        window by default. With `narrow`, each move's window starts just below the mover's best so
        far: ties stay exact while worse moves are cut off (the depth-limited AIs choose so)."""
        counts = self.counts
        counts.nodes += 1
        root_id = self.first_id + counts.nodes
        tracer = self.tracer
        if tracer is not None:
            tracer(Enter(root_id, None, board, 0, None, None, None))
        finished = self.finished_value(board, 0)
        if finished is not None:
            counts.terminal += 1
            if tracer is not None:
                tracer(Exit(root_id, finished, False, None, None, False))
            return []
        mover = side_to_move(board)
        alpha, beta = self.open_window if window is None else window
        top = -WIN_SCORE - 1  # the mover's best score so far, from the mover's side
        scored: list[tuple[int, int]] = []
        estimated = False
        for move in legal_moves(board, self.game):
            if narrow:  # the window (top - 1, beyond any win) on the mover's side, told from o's
                alpha, beta = sorted(score_seen_by(bound, "o", mover) for bound in (top - 1, WIN_SCORE + 1))
            score = self.search(play(board, move, mover), alpha, beta, 1, root_id, move)
            estimated = estimated or self.estimated
            scored.append((move, score))
            top = max(top, score_seen_by(score, mover))
        if tracer is not None:
            tracer(Exit(root_id, score_seen_by(top, "o", mover), False, None, None, estimated))
        return scored

    # --- one node -------------------------------------------------------------------------

    def finished_value(self, board: str, ply: int) -> int | None:
        """The score of a finished board `ply` plies below the root, None while the game is on."""
        board_status = status(board, self.game)
        if board_status == "playing":
            return None
        if self.spec.depth is None:
            moves_made = len(board) - board.count(EMPTY)
            return final_score(board_status, moves_made, shortest=self.spec.shortest, cells=self.game.cells)
        if board_status == "draw":
            return 0
        return score_seen_by(WIN_SCORE - ply, "o", board_status)

    def _estimate(self, board: str) -> int:
        if not self.spec.evaluate_lines:
            return 0
        just_moved = other(side_to_move(board))
        return score_seen_by(line_estimate(board, just_moved, self.game), "o", just_moved)

    def _value(self, board: str, ply: int, alpha: int, beta: int, node_id: int) -> tuple[int, bool, Probe, Store]:
        """(score, cut off, what the table probe found, what was stored) of one node."""
        counts = self.counts
        self.estimated = False
        finished = self.finished_value(board, ply)
        if finished is not None:
            counts.terminal += 1
            return finished, False, None, None
        spec = self.spec
        probe: Probe = None
        entry: tuple[int, int] | None = None
        if spec.table != "none":
            counts.table_probes += 1
            probe = "miss"
            entry = self.table.get(board)
            if entry is not None:
                lower, upper = entry
                if lower == upper:
                    counts.table_hits_exact += 1
                    return upper, False, "exact", None
                if upper <= alpha:
                    counts.table_hits_bound += 1
                    return upper, False, "bound", None
                if lower >= beta:
                    counts.table_hits_bound += 1
                    return lower, False, "bound", None
                alpha, beta = max(alpha, lower), min(beta, upper)
                probe = "narrowed"
        if spec.depth is not None and ply > spec.depth:
            self.estimated = True
            return self._estimate(board), False, probe, None
        best, cutoff, estimated = self._children(board, ply, alpha, beta, node_id)
        self.estimated = estimated
        store: Store = None
        if spec.table == "exact":
            store = "exact"
            self._write(board, (best, best))
        elif spec.table == "bounds":
            lower, upper = entry if entry is not None else (self.low, self.high)
            if best <= alpha:
                store, bounds = "upper", (lower, best)
            elif best >= beta:
                store, bounds = "lower", (best, upper)
            else:
                store, bounds = "exact", (best, best)
            self._write(board, bounds)
        return best, cutoff, probe, store

    def _children(self, board: str, ply: int, alpha: int, beta: int, node_id: int) -> tuple[int, bool, bool]:
        """(best score, cut off, rests on an estimate) over the moves of an unfinished board."""
        mover = side_to_move(board)
        maximising = mover == "o"
        pruning = self.spec.pruning
        best = self.low - 1 if maximising else self.high + 1
        estimated = False
        for move in legal_moves(board, self.game):
            value = self.search(play(board, move, mover), alpha, beta, ply + 1, node_id, move)
            estimated = estimated or self.estimated
            if maximising:
                if value > best:
                    best = value
                    if pruning and best > alpha:
                        alpha = best
            elif value < best:
                best = value
                if pruning and best < beta:
                    beta = best
            if pruning and alpha >= beta:
                self.counts.cutoffs += 1
                return best, True, estimated
        return best, False, estimated

    def _write(self, board: str, bounds: tuple[int, int]) -> None:
        self.counts.table_stores += 1
        if self.spec.table == "bounds":
            for image in symmetric_images(board, self.game):
                self.table[image] = bounds
        else:
            self.table[board] = bounds


def full_tree_nodes(empty: int, plies: int) -> int:
    """Nodes of the full game tree `plies` deep below a board with `empty` empty cells (finished
    games not cut off): the most a search without a table or pruning may examine."""
    return sum(perm(empty, depth) for depth in range(min(plies, empty) + 1))
