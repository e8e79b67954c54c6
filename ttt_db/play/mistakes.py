"""A game's first mistake: the one definition that `check` (a weak counterexample's decisive
mistake), `play` (your first mistake) and the page (the value history's marked move) show."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ttt_db.game.rules import Mark, Value, value_rank
from ttt_db.position import MoveAnalysis, Position, analyses_of, moves_told, told_together


@dataclass(frozen=True, slots=True)
class Mistake:
    """A move after which, with best play, its player (`side`) can no longer get what it could
    before: `value_after` is below the value it is held to (`value_before`, or a weak check's
    target). Values are the player's own; `board` is the board it was played on, in the game's
    marks."""

    ply: int  # moves made before it
    board: str
    side: Mark
    move: int
    value_before: Value
    value_after: Value
    held: tuple[int, ...]  # the moves that would have kept what it was held to
    best: tuple[int, ...]
    moves: tuple[MoveAnalysis, ...] = ()  # every legal move's value there, from the database
    held_to: Value | None = None  # what `held` keeps: `value_before`, or the weak check's target when given

    @property
    def held_text(self) -> str:
        """What the moves in `held` would have kept, in words: `the win`, `a draw or better`."""
        kept = self.held_to or self.value_before
        return {"win": "the win", "draw": "a draw or better"}.get(kept, "a loss or better")

    @property
    def text(self) -> str:
        """The mistake in words, as a check's report and a played game's review tell it everywhere
        (the CLI, the notebook and the page show it unchanged): `move 5: o could still get a draw;
        it played 3 (a2), which loses in 2; 7 (b3) would have kept a draw or better`."""
        named = {analysis.move: analysis.game.move_label(analysis.move) for analysis in self.moves}
        held = told_together([named.get(move, str(move)) for move in self.held]) or "no move"
        return (
            f"move {self.ply + 1}: {self.side} could still get {_GOT[self.value_before]}; "
            f"it played {moves_told([self.move], self.moves)}; "
            f"{held} would have kept {self.held_text}"
        )

    def analyses(self, moves: Iterable[int]) -> list[MoveAnalysis]:
        return analyses_of(self.moves, moves)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ply": self.ply,
            "board": self.board,
            "to_move": self.side,
            "move": self.move,
            "value_before": self.value_before,
            "value_after": self.value_after,
            "held": list(self.held),
            "held_to": self.held_to or self.value_before,
            "held_text": self.held_text,
            "best": list(self.best),
            "move_values": [analysis.to_dict() for analysis in self.moves],
            "text": self.text,
        }


_GOT: Final = {"win": "the win", "draw": "a draw", "loss": "a loss"}
"""What a player could still get, by its value with best play, in words."""


def first_mistake(
    positions: Sequence[Position], moves: Sequence[int], side: Mark | None = None, target: Value | None = None
) -> Mistake | None:
    """The first of `moves` (by `side` only, when given) after which its player's value with best
    play is below the value it had before the move, or below `target` when given (a weak check
    holds the AI to the start's value, so giving back what an opponent's blunder offered is not
    its decisive mistake). `positions[i]` is the position `moves[i]` is played from."""
    for ply, (position, move) in enumerate(zip(positions, moves, strict=False)):
        if position.to_move is None or (side is not None and position.to_move != side):
            continue
        played = analyses_of(position.moves, [move])
        if not played:
            continue
        floor = position.value if target is None else target
        if value_rank(played[0].value) < value_rank(floor):
            held = tuple(a.move for a in position.moves if value_rank(a.value) >= value_rank(floor))
            return Mistake(
                ply,
                position.cells,
                position.to_move,
                move,
                position.value,
                played[0].value,
                held,
                position.best_moves,
                position.moves,
                floor,
            )
    return None
