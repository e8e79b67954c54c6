"""The board type: parse, validate, format, and the moves on it.

`Board.parse` accepts the notations of the command-line contract and refuses boards that are
malformed or that no game reaches. `str(board)` formats it back as 9 characters (`o`, `x`, `.`)
and `Board.parse(str(board)) == board` always holds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from ttt_db.errors import ImpossibleBoardError, InvalidBoardError, InvalidMoveError
from ttt_db.rules import (
    EMPTY,
    Mark,
    Status,
    legal_moves,
    move_name,
    other,
    play,
    status,
    swap_marks,
    winning_lines,
)

_CELL_CHARS: Final = {"o": "o", "O": "o", "x": "x", "X": "x", ".": ".", "-": ".", "_": ".", " ": "."}
_MOVE_NAME: Final = re.compile(r"^([abc])([123])$")
_MOVE_XY: Final = re.compile(r"^\(?\s*([0-2])\s*,\s*([0-2])\s*\)?$")


def normalize_cells(text: str) -> str:
    """9 lowercase cells from any accepted notation, or InvalidBoardError naming the fault."""
    if "/" in text:
        rows = text.split("/")
        if len(rows) != 3 or any(len(row) != 3 for row in rows):
            raise InvalidBoardError(text, "rows separated by '/' must be 3 rows of 3 cells")
        raw = "".join(rows)
    else:
        raw = text
    if len(raw) != 9:
        raise InvalidBoardError(text, f"expected 9 cells, got {len(raw)}")
    try:
        return "".join(_CELL_CHARS[char] for char in raw)
    except KeyError as missing:
        raise InvalidBoardError(
            text, f"unexpected character {missing.args[0]!r} (use o, x and . - _ or space for empty)"
        ) from None


def impossibility(cells: str) -> str | None:
    """Why no game reaches these cells, or None when one does. Either mark may have moved first."""
    o_lines = winning_lines(cells, "o")
    x_lines = winning_lines(cells, "x")
    if o_lines and x_lines:
        return "both o and x have three in a row"
    for mark, lines in (("o", o_lines), ("x", x_lines)):
        if len(lines) > 1 and not set(lines[0]).intersection(*lines[1:]):
            return f"{mark} has winning lines that share no cell, which no single last move makes"
    o_count, x_count = cells.count("o"), cells.count("x")
    if abs(o_count - x_count) > 1:
        return (
            f"o has {o_count} marks and x has {x_count}; "
            "the players alternate, so the counts differ by at most one"
        )
    first: Mark = "o" if o_count >= x_count else "x"
    last_mover = first if o_count != x_count else other(first)
    won: Mark | None = "o" if o_lines else "x" if x_lines else None
    if won is not None and won != last_mover:
        return f"{won} has three in a row, yet {other(won)} moved after the game was won"
    return None


@dataclass(frozen=True, slots=True)
class Board:
    """A reachable tic-tac-toe board in the user's marks and orientation.

    `cells` holds 9 characters in reading order. `o` moved first unless `x` has one more mark.
    """

    cells: str

    def __post_init__(self) -> None:
        if len(self.cells) != 9 or any(c not in "ox." for c in self.cells):
            raise InvalidBoardError(self.cells, "expected 9 characters from 'o', 'x' and '.'")
        reason = impossibility(self.cells)
        if reason is not None:
            raise ImpossibleBoardError(self.cells, reason)

    @classmethod
    def parse(cls, text: str) -> Board:
        """Parse any accepted notation; InvalidBoardError (a ValueError) quotes the input."""
        cells = normalize_cells(text)
        try:
            return cls(cells)
        except ImpossibleBoardError as error:  # quote what the user typed, not the normalised cells
            raise ImpossibleBoardError(text, error.reason) from None

    @classmethod
    def empty(cls) -> Board:
        return cls(EMPTY * 9)

    def __str__(self) -> str:
        return self.cells

    @property
    def first(self) -> Mark:
        """The mark that moved first: `x` only when it has one more mark than `o`."""
        return "x" if self.cells.count("x") > self.cells.count("o") else "o"

    @property
    def swapped(self) -> bool:
        """True when `x` moved first, so the database answers for the mark-swapped board."""
        return self.first == "x"

    @property
    def stored_cells(self) -> str:
        """The cells in the database's convention (`o` first)."""
        return swap_marks(self.cells) if self.swapped else self.cells

    @property
    def status(self) -> Status:
        return status(self.cells)

    @property
    def is_over(self) -> bool:
        return self.status != "playing"

    @property
    def to_move(self) -> Mark | None:
        """Who moves next, or None when the game is over."""
        if self.is_over:
            return None
        o_count, x_count = self.cells.count("o"), self.cells.count("x")
        return self.first if o_count == x_count else other(self.first)

    @property
    def depth(self) -> int:
        """How many moves have been made."""
        return 9 - self.cells.count(EMPTY)

    def legal_moves(self) -> tuple[int, ...]:
        return legal_moves(self.cells)

    def push(self, move: int) -> Board:
        """The board after the side to move takes `move`; InvalidMoveError if it is not legal."""
        mover = self.to_move
        if mover is None:
            raise InvalidMoveError(str(move), f"the game on {self.cells!r} is over")
        if move not in range(9):
            raise InvalidMoveError(str(move), "cells are numbered 0 to 8")
        if self.cells[move] != EMPTY:
            raise InvalidMoveError(move_name(move), f"cell {move} is taken by {self.cells[move]}")
        return Board(play(self.cells, move, mover))


def parse_move(text: str) -> int:
    """A cell index from `0`-`8`, a name like `b3`, or `x,y` (column, row). Raises InvalidMoveError."""
    token = text.strip().lower()
    if token.isdigit():
        move = int(token)
        if move > 8:
            raise InvalidMoveError(text, "cells are numbered 0 to 8")
        return move
    named = _MOVE_NAME.match(token)
    if named:
        return "abc".index(named.group(1)) + 3 * (int(named.group(2)) - 1)
    pair = _MOVE_XY.match(token)
    if pair:
        return int(pair.group(1)) + 3 * int(pair.group(2))
    raise InvalidMoveError(text, "expected a cell index 0-8, a name like b3, or x,y")


def diagram(cells: str) -> str:
    """The board drawn with its column letters and row numbers."""
    lines = ["    a   b   c"]
    for row in range(3):
        if row:
            lines.append("   ---+---+---")
        lines.append(f"{row + 1}   " + " | ".join(cells[3 * row : 3 * row + 3]))
    return "\n".join(lines)


def describe_moves(moves: tuple[int, ...] | list[int]) -> str:
    """`4 (b2), 7 (b3)`: indices with their names."""
    return ", ".join(f"{move} ({move_name(move)})" for move in moves)
