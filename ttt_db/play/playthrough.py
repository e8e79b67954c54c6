"""A playthrough: one game in progress of an m,n,k-game, its boards so far, moves with
legality checks, taking moves back, and finding the move where a player's outcome got worse."""

from __future__ import annotations

from collections.abc import Callable

from ttt_db.errors import InvalidMoveError
from ttt_db.game.board import Board
from ttt_db.game.definition import Game
from ttt_db.game.rules import Mark, Status
from ttt_db.play.mistakes import Mistake, first_mistake
from ttt_db.position import Position


class Playthrough:
    """A game of `game` from `start` (the empty board with `o` first by default)."""

    def __init__(self, game: Game, start: Board | None = None) -> None:
        self.game = game
        self.history: list[Board] = [start or Board.empty(game=game)]
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

    def undo_turn(self, side: Mark) -> int:
        """Take back `side`'s last move and everything after it, so it is `side`'s turn again.
        Returns how many moves were taken back; InvalidMoveError if `side` has not moved."""
        for count in range(1, len(self.moves) + 1):
            if self.history[-1 - count].next_player == side:
                self.undo(count)
                return count
        raise InvalidMoveError("undo", f"{side} has no move on the board to take back")

    def first_mistake(self, lookup: Callable[[Board], Position], side: Mark | None = None) -> Mistake | None:
        """The first move (`side`'s only, when given) that turned its player's win into a draw or
        loss, or a draw into a loss (`ttt_db.play.mistakes.first_mistake`), in the game's marks."""
        return first_mistake([lookup(board) for board in self.history[:-1]], self.moves, side)
