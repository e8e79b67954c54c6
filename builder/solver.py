"""Enumerate the whole game from the empty board and solve every position by minimax.

Boards are plain 9-character strings with `o` moving first. The game tree (549,946 nodes) is
never materialised: each position carries `paths`, the number of move sequences reaching it,
so the tree nodes at a depth are the sum of `paths` over the positions at that depth.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from math import factorial

from ttt_db.backup import back_up
from ttt_db.rules import EMPTY, EMPTY_BOARD, Mark, Status, final_score, mover_at, play, status
from ttt_db.symmetry import canonical_board

Progress = Callable[[str, int, int], None]
"""Called as progress(stage, done, total) while a stage runs."""

MoveValue = tuple[int, str, int]
"""(move, value for the player making it, remoteness after it)."""


@dataclass(frozen=True, slots=True)
class SolvedPosition:
    board: str
    canonical: str
    depth: int
    status: Status
    to_move: Mark | None
    score: int
    value: str
    remoteness: int
    sv_score: int
    best_moves: tuple[int, ...]
    best_moves_shortest: tuple[int, ...]
    move_values: tuple[MoveValue, ...]
    playout: tuple[int, int, int, int]  # o wins, x wins, draws over a denominator
    paths: int


@dataclass
class GameGraph:
    """Every reachable board by depth, the moves out of each, and the paths into each."""

    levels: list[list[str]]
    children: dict[str, tuple[tuple[int, str], ...]]
    paths: dict[str, int]
    statuses: dict[str, Status]


@dataclass
class Solution:
    positions: list[SolvedPosition]  # ordered by depth, then board
    tree_nodes_by_depth: list[int]
    positions_by_depth: list[int]
    canonical_by_depth: list[int]
    node_lists: dict[str, list[str]] = field(default_factory=dict)


def _ignore_progress(stage: str, done: int, total: int) -> None:
    return None


def enumerate_game(progress: Progress = _ignore_progress) -> GameGraph:
    """Breadth-first from the empty board, one depth at a time, merging transpositions."""
    levels: list[list[str]] = [[EMPTY_BOARD]]
    children: dict[str, tuple[tuple[int, str], ...]] = {}
    paths: dict[str, int] = {EMPTY_BOARD: 1}
    statuses: dict[str, Status] = {EMPTY_BOARD: "playing"}
    for depth in range(10):
        mark = mover_at(depth)
        next_paths: dict[str, int] = {}
        for board in levels[depth]:
            if statuses[board] != "playing":
                children[board] = ()
                continue
            board_paths = paths[board]
            moves = []
            for move in range(9):
                if board[move] == EMPTY:
                    child = play(board, move, mark)
                    moves.append((move, child))
                    next_paths[child] = next_paths.get(child, 0) + board_paths
            children[board] = tuple(moves)
        progress("enumerate", depth + 1, 10)
        if not next_paths:
            break
        for child in next_paths:
            statuses[child] = status(child)
        paths.update(next_paths)
        levels.append(sorted(next_paths))
    return GameGraph(levels, children, paths, statuses)


def _certain_playout(board_status: Status, depth: int) -> tuple[int, int, int, int]:
    """Playout of a finished game: every one of the (9 - depth)! move orders gives its result."""
    ways = factorial(9 - depth)
    return (
        ways if board_status == "o" else 0,
        ways if board_status == "x" else 0,
        ways if board_status == "draw" else 0,
        ways,
    )


def solve_position(
    board: str, depth: int, graph: GameGraph, solved: dict[str, SolvedPosition]
) -> SolvedPosition:
    """Minimax one position from its already-solved children."""
    board_status = graph.statuses[board]
    canonical = canonical_board(board)
    paths = graph.paths[board]
    if board_status != "playing":
        value = "draw" if board_status == "draw" else "loss"
        return SolvedPosition(
            board, canonical, depth, board_status, None, final_score(board_status, depth), value, 0,
            final_score(board_status, depth, shortest=True), (), (), (),
            _certain_playout(board_status, depth), paths,
        )
    mover = mover_at(depth)
    kids = [(move, solved[child]) for move, child in graph.children[board]]
    backup = back_up(mover, kids)
    playout = (
        sum(kid.playout[0] for _, kid in kids),
        sum(kid.playout[1] for _, kid in kids),
        sum(kid.playout[2] for _, kid in kids),
        factorial(9 - depth),
    )
    return SolvedPosition(
        board, canonical, depth, "playing", mover, backup.score, backup.value, backup.remoteness,
        backup.sv_score, backup.best_moves, backup.best_moves_shortest, backup.move_values, playout, paths,
    )


def node_lists(positions: list[SolvedPosition]) -> dict[str, list[str]]:
    """The named lists the checks iterate, each in (depth, board) order."""
    playing = [p for p in positions if p.status == "playing"]
    decision = [p for p in playing if len(p.best_moves) < len(p.move_values)]
    return {
        "all": [p.board for p in positions],
        "canonical": [p.board for p in positions if p.board == p.canonical],
        "playing": [p.board for p in playing],
        "decision": [p.board for p in decision],
        "decision_canonical": [p.board for p in decision if p.board == p.canonical],
    }


def solve_game(progress: Progress = _ignore_progress) -> Solution:
    """The complete solution: every position solved, counted by depth, and listed."""
    graph = enumerate_game(progress)
    solved: dict[str, SolvedPosition] = {}
    total = len(graph.levels)
    for done, depth in enumerate(reversed(range(total)), start=1):
        for board in graph.levels[depth]:
            solved[board] = solve_position(board, depth, graph, solved)
        progress("solve", done, total)
    positions = [solved[board] for level in graph.levels for board in level]
    return Solution(
        positions=positions,
        tree_nodes_by_depth=[sum(graph.paths[b] for b in level) for level in graph.levels],
        positions_by_depth=[len(level) for level in graph.levels],
        canonical_by_depth=[
            sum(1 for b in level if solved[b].canonical == b) for level in graph.levels
        ],
        node_lists=node_lists(positions),
    )
