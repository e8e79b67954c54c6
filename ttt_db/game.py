"""A game in progress: the boards so far, moves with legality checks, and taking moves back."""

from __future__ import annotations

from ttt_db.board import Board
from ttt_db.errors import InvalidMoveError
from ttt_db.rules import Mark, Status


class Game:
    """A game from the empty board with `o` first."""

    def __init__(self) -> None:
        self.history: list[Board] = [Board.empty()]
        self.moves: list[int] = []

    @property
    def board(self) -> Board:
        return self.history[-1]

    @property
    def to_move(self) -> Mark | None:
        return self.board.to_move

    @property
    def status(self) -> Status:
        return self.board.status

    @property
    def is_over(self) -> bool:
        return self.board.is_over

    def push(self, move: int) -> Board:
        """Play `move` for the side to move; InvalidMoveError if the game is over or the cell taken."""
        board = self.board.push(move)
        self.history.append(board)
        self.moves.append(move)
        return board

    def undo(self, count: int) -> None:
        """Take back the last `count` moves; InvalidMoveError if fewer were made."""
        if count > len(self.moves):
            raise InvalidMoveError("undo", f"only {len(self.moves)} moves to take back")
        for _ in range(count):
            self.history.pop()
            self.moves.pop()
