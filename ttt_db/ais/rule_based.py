"""`ai14s`: the rule-based AI of docs/ais.md. For each legal move it scores the board after the
move by its lines (`ttt_db.search.evaluation`) and keeps the moves with the top score."""

from __future__ import annotations

from ttt_db.game.definition import TICTACTOE
from ttt_db.game.rules import EMPTY, Mark, side_to_move
from ttt_db.search.evaluation import PATTERN, score_from_counts

_LINES = TICTACTOE.lines
_LINES_THROUGH = tuple(tuple(n for n, line in enumerate(_LINES) if cell in line) for cell in range(TICTACTOE.cells))


def line_tallies(board: str, me: Mark) -> tuple[list[int], list[int]]:
    """Per line: how many of my marks, how many of the opponent's."""
    mine = [0] * 8
    theirs = [0] * 8
    for number, line in enumerate(_LINES):
        for cell in line:
            mark = board[cell]
            if mark == me:
                mine[number] += 1
            elif mark != EMPTY:
                theirs[number] += 1
    return mine, theirs


def move_scores(board: str, me: Mark) -> list[tuple[int, int]]:
    """(move, doubled score of the board after it) for every empty cell, updating only the lines
    through the cell that changes."""
    mine, theirs = line_tallies(board, me)
    base = [0] * 6
    for number in range(8):
        base[PATTERN[mine[number]][theirs[number]]] += 1
    scored = []
    for move in range(9):
        if board[move] != EMPTY:
            continue
        counts = base.copy()
        for number in _LINES_THROUGH[move]:
            counts[PATTERN[mine[number]][theirs[number]]] -= 1
            counts[PATTERN[mine[number] + 1][theirs[number]]] += 1
        after = board[:move] + me + board[move + 1 :]
        scored.append((move, score_from_counts(counts, after)))
    return scored


def ai14s(board: str) -> tuple[int, ...]:
    """Every move whose resulting board scores highest by the rules of docs/ais.md."""
    scored = move_scores(board, side_to_move(board))
    top = max(score for _, score in scored)
    return tuple(move for move, score in scored if score == top)
