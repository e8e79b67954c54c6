"""One minimax step: what a position is worth, given what each of its moves leads to.

`verify` holds every stored row to it, one position at a time, from its children's stored rows:
the plain statement of score, shortest-victory score, remoteness and best moves that the
builder's array solve (`builder.solver`) must agree with.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from ttt_db.game.rules import Mark, value_for_mover


class Solved(Protocol):
    """What a minimax step needs from a child: its values from o's side and its remoteness."""

    @property
    def score(self) -> int: ...

    @property
    def sv_score(self) -> int: ...

    @property
    def remoteness(self) -> int: ...


@dataclass(frozen=True, slots=True)
class StepResult:
    score: int  # from o's side
    value: str  # for the mover
    sv_score: int
    remoteness: int
    best_moves: tuple[int, ...]
    best_moves_shortest: tuple[int, ...]
    move_values: tuple[tuple[int, str, int], ...]  # (move, value for the mover, remoteness after)


def minimax_step(mover: Mark, children: Sequence[tuple[int, Solved]]) -> StepResult:
    """Minimax over `(move, child)` pairs in move order: the mover keeps the best score, wins
    as fast and loses as slowly as it can (remoteness), and lists every move that keeps it."""
    sign = 1 if mover == "o" else -1
    score = sign * max(sign * child.score for _, child in children)
    sv_score = sign * max(sign * child.sv_score for _, child in children)
    keeping = [child.remoteness for _, child in children if child.score == score]
    remoteness = 1 + (min(keeping) if sign * score > 0 else max(keeping))
    return StepResult(
        score=score,
        value=value_for_mover(score, mover),
        sv_score=sv_score,
        remoteness=remoteness,
        best_moves=tuple(move for move, child in children if child.score == score),
        best_moves_shortest=tuple(move for move, child in children if child.sv_score == sv_score),
        move_values=tuple((move, value_for_mover(child.score, mover), child.remoteness) for move, child in children),
    )
