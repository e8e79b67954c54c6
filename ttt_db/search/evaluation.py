"""ai14s's board score (docs/ais.md), the evaluation every depth-limited search uses at its limit.

Scores are kept doubled (600 for 300, 1 for 0.5, ...) so every comparison is exact on ints.
A line's pattern is (my marks, opponent marks); the empty count is what is left of K.

`board_score` generalises the score to K-long lines on any m,n,k board: K of mine is a win, K-1
of mine with the rest empty a threat (the opponent's K-1 a threat against me), and an open line
(no opposing mark) with j < K-1 marks weighs j, so on 3x3 it is ai14s's score exactly. The
diagonal-defence rule is 3x3's alone.
"""

from __future__ import annotations

from functools import cache
from typing import Final

from ttt_db.game.definition import TICTACTOE, Game
from ttt_db.game.rules import EMPTY, Mark

WIN: Final = 0  # (3, 0, 0)
OPPONENT_THREAT: Final = 1  # (0, 2, 1): the opponent wins next move
MY_THREAT: Final = 2  # (2, 0, 1)
MY_SINGLE: Final = 3  # (1, 0, 2)
OPPONENT_SINGLE: Final = 4  # (0, 1, 2)
OTHER: Final = 5

# PATTERN[mine][theirs] -> category
PATTERN: Final = (
    (OTHER, OPPONENT_SINGLE, OPPONENT_THREAT, OTHER),
    (MY_SINGLE, OTHER, OTHER, OTHER),
    (MY_THREAT, OTHER, OTHER, OTHER),
    (WIN, OTHER, OTHER, OTHER),
)
_EDGES: Final = (1, 3, 5, 7)

SCORE_WIN: Final = 600
SCORE_DOUBLE_THREAT: Final = 400
SCORE_DIAGONAL_DEFENCE: Final = 200


def diagonal_defence(after: str) -> bool:
    """Rule 3: x in the centre, o on both ends of a diagonal, x on an edge, 4 marks in all."""
    return (
        after[4] == "x"
        and ((after[0] == "o" and after[8] == "o") or (after[2] == "o" and after[6] == "o"))
        and any(after[edge] == "x" for edge in _EDGES)
        and 9 - after.count(EMPTY) == 4
    )


def score_from_counts(counts: list[int], after: str, tictactoe: bool = True) -> int:
    """The doubled score of the board after my move, from its line-category counts (the two
    open-line categories hold weights: on 3x3, counts)."""
    if counts[WIN]:
        return SCORE_WIN
    threats = counts[OPPONENT_THREAT]
    if threats == 0 and counts[MY_THREAT] >= 2:
        return SCORE_DOUBLE_THREAT
    if tictactoe and diagonal_defence(after):
        return SCORE_DIAGONAL_DEFENCE
    return -200 * threats + (4 if counts[MY_THREAT] == 1 else 0) + counts[MY_SINGLE] - 2 * counts[OPPONENT_SINGLE]


@cache
def weighted_patterns(k: int) -> tuple[tuple[tuple[int, int], ...], ...]:
    """[mine][theirs] -> (category, weight) for K-long lines (on K = 3, PATTERN with weight 1)."""

    def classify(mine: int, theirs: int) -> tuple[int, int]:
        if mine == k:
            return WIN, 1
        if k >= 2 and mine == 0 and theirs == k - 1:
            return OPPONENT_THREAT, 1
        if k >= 2 and theirs == 0 and mine == k - 1:
            return MY_THREAT, 1
        if theirs == 0 and mine >= 1:
            return MY_SINGLE, mine
        if mine == 0 and 1 <= theirs < k:
            return OPPONENT_SINGLE, theirs
        return OTHER, 1

    return tuple(tuple(classify(mine, theirs) for theirs in range(k + 1)) for mine in range(k + 1))


def board_score(after: str, me: Mark, game: Game) -> int:
    """ai14s's doubled score of a board of `game`, seen by `me` (the player who just moved)."""
    patterns = weighted_patterns(game.k)
    counts = [0] * 6
    for line in game.lines:
        mine = theirs = 0
        for cell in line:
            mark = after[cell]
            if mark == me:
                mine += 1
            elif mark != EMPTY:
                theirs += 1
        category, weight = patterns[mine][theirs]
        counts[category] += weight
    return score_from_counts(counts, after, game == TICTACTOE)
