"""The whole line: perfect play from a board to the end of the game, read from the database one
position at a time (a tablebase's principal variation, the end included)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ttt_db.game.board import Board
from ttt_db.position import Position
from ttt_db.store.database import SolutionDatabase


@dataclass(frozen=True, slots=True)
class LinePly:
    """One position of the line: what it is worth, every move that keeps that (the ties), and the
    move played (the first of them; None once the game is over)."""

    position: Position
    ties: tuple[int, ...]
    move: int | None

    def to_document(self) -> dict[str, Any]:
        position = self.position
        return {
            "ply": position.depth,
            "board": position.cells,
            "to_move": position.to_move,
            "status": position.status,
            "value": position.value,
            "remoteness": position.remoteness,
            "ties": list(self.ties),
            "move": self.move,
            "name": None if self.move is None else position.board.game.move_name(self.move),
        }


@dataclass(frozen=True)
class Line:
    """Perfect play from `start` to the end: `plies` holds every position, the last one finished."""

    start: Board
    shortest: bool
    plies: tuple[LinePly, ...]

    @property
    def moves(self) -> tuple[int, ...]:
        return tuple(ply.move for ply in self.plies if ply.move is not None)

    @property
    def end(self) -> Position:
        return self.plies[-1].position

    def to_document(self) -> dict[str, Any]:
        """`ttt-db line --json` and `/api/line` (docs/json.md)."""
        return {
            "board": self.start.cells,
            "first": self.start.first,
            "game": self.start.game.name,
            "shortest": self.shortest,
            "moves": list(self.moves),
            "plies": [ply.to_document() for ply in self.plies],
            "end": {"board": self.end.cells, "status": self.end.status},
        }


def perfect_line(database: SolutionDatabase, board: Board, *, shortest: bool = False) -> Line:
    """Perfect play from `board` to the end of the game: at each position the first (lowest cell)
    of its best moves, or with `shortest` of its shortest best moves (the fastest win, the slowest
    loss: the line then ends in exactly the start's remoteness); every tie is listed."""
    plies = []
    while True:
        position = database.lookup(board)
        if board.is_over:
            plies.append(LinePly(position, (), None))
            return Line(plies[0].position.board, shortest, tuple(plies))
        ties = position.best_moves_shortest if shortest else position.best_moves
        plies.append(LinePly(position, ties, ties[0]))
        board = board.push(ties[0])
