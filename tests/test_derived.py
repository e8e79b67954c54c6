"""Figures derived here, by code written for the test, instead of pasted: an independent count
of the game tree, a brute-force minimax over every position, and ai14s's strong-check failures."""

from __future__ import annotations

from functools import cache

import pytest

from ttt_db.ais.rule_based import ai14s
from ttt_db.checks.solved import check_strong
from ttt_db.store.database import SolutionDatabase

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def won(board: str) -> bool:
    return any(board[a] != "." and board[a] == board[b] == board[c] for a, b, c in LINES)


def children(board: str) -> list[tuple[int, str]]:
    if won(board):
        return []
    mark = "o" if board.count("o") == board.count("x") else "x"
    return [(i, board[:i] + mark + board[i + 1 :]) for i in range(9) if board[i] == "."]


@cache
def tree_nodes_below(board: str) -> tuple[int, ...]:
    """Tree nodes at each depth 0..9 in the subtree of `board` (itself included), counted by
    depth-first search: no `paths`, no builder."""
    counts = [0] * 10
    counts[9 - board.count(".")] = 1
    for _, child in children(board):
        counts = [a + b for a, b in zip(counts, tree_nodes_below(child), strict=True)]
    return tuple(counts)


@cache
def solve(board: str) -> tuple[int, int]:
    """(score for o, remoteness): plain minimax; the winner hurries, the loser delays, a draw
    lasts until the board is full."""
    if won(board):
        return (1 if board.count("o") > board.count("x") else -1), 0
    moves = children(board)
    if not moves:
        return 0, 0
    results = [solve(child) for _, child in moves]
    sign = 1 if board.count("o") == board.count("x") else -1
    best = max(sign * score for score, _ in results)
    keeping = [remoteness for score, remoteness in results if sign * score == best]
    return sign * best, 1 + (min(keeping) if best > 0 else max(keeping))


@cache
def best_moves(board: str) -> tuple[int, ...]:
    score, _ = solve(board)
    return tuple(move for move, child in children(board) if solve(child)[0] == score)


@cache
def reachable() -> frozenset[str]:
    seen = {"........."}
    frontier = ["........."]
    while frontier:
        frontier = [child for board in frontier for _, child in children(board) if child not in seen]
        seen.update(frontier)
    return frozenset(seen)


def test_the_tree_counted_depth_first() -> None:
    by_depth = tree_nodes_below(".........")
    assert sum(by_depth) == 549_946
    assert by_depth == (1, 9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872)


def test_every_stored_value_equals_a_brute_force_minimax(positions) -> None:
    boards = reachable()
    assert boards == set(positions)
    for board in boards:
        stored = positions[board]
        score, remoteness = solve(board)
        assert (stored.score, stored.remoteness) == (score, remoteness), board
        if children(board):
            assert stored.best_moves == best_moves(board), board


def test_ai14s_strong_failures_are_the_ones_the_test_finds(db: SolutionDatabase) -> None:
    decision = sorted(
        (b for b in reachable() if children(b) and len(best_moves(b)) < len(children(b))),
        key=lambda b: (9 - b.count("."), b),
    )
    assert len(decision) == 3191
    expected = [b for b in decision if not set(ai14s(b)) <= set(best_moves(b))]
    result = check_strong(ai14s, db.node_list("decision"), db.best_moves_table())
    assert [f.board for f in result.failures] == expected
    assert (result.correct, result.total) == (3191 - len(expected), 3191)


@pytest.mark.parametrize("board", ["o........", "....o....", ".o.......", "ox..x...."])
def test_symmetric_images_have_the_same_value(db: SolutionDatabase, board: str) -> None:
    from ttt_db.game.symmetry import symmetric_images

    values = {(db.lookup(image).score, db.lookup(image).remoteness) for image in symmetric_images(board)}
    assert len(values) == 1
