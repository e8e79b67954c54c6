"""The board type: parse, validate, format, and the moves on it.

`Board.parse` accepts the notations of the command-line contract and refuses boards that are
malformed or that no game reaches, saying what was probably meant. `str(board)` formats it back
as its game's cells (`o`, `x`, `.`; 9 for tic-tac-toe), followed by `:x` when x moved first and
the counts do not say so, so `Board.parse(str(board), game=board.game) == board` always holds.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from ttt_db.errors import ImpossibleBoardError, InvalidBoardError, InvalidMoveError
from ttt_db.game.definition import TICTACTOE, Game
from ttt_db.game.rules import (
    EMPTY,
    Mark,
    Status,
    legal_moves,
    move_name,
    mover_at,
    other,
    play,
    status,
    swap_marks,
    winner,
    winning_lines,
)

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

FIRST_SEPARATOR: Final = ":"
"""Between a board's cells and who moved first, where the counts do not say: `xo..ox...:x`."""
_CELL_CHARS: Final = {"o": "o", "O": "o", "x": "x", "X": "x", ".": ".", "-": ".", "_": ".", " ": "."}
_MOVE_NAME: Final = re.compile(r"^([a-z])(\d+)$")
_MOVE_XY: Final = re.compile(r"^\(?\s*(-?\d+)\s*,\s*(-?\d+)\s*\)?$")


def _example(game: Game) -> str:
    if game == TICTACTOE:
        return "a board is 9 cells in reading order, such as 'ox..x....' or 'ox./.x./...'"
    rows = "/".join("." * game.columns for _ in range(game.rows))
    return f"a {game} board is {game.cells} cells in reading order, such as {rows!r}"


def _another_game(rows: int, columns: int) -> str:
    """What to give for a board of another game's shape (k: the shorter side, at most 4)."""
    return f"; a {rows}x{columns} board is another game: give --game {rows}x{columns}k{min(rows, columns, 4)}"


def _shape_of(cells: int) -> tuple[int, int] | None:
    """The board shape most likely meant by `cells` cells: rows x columns, 3 <= rows <= columns
    <= rows + 2 (a cell more or less than 9 is a typo, not another game)."""
    for rows in range(5, 2, -1):
        if cells % rows == 0 and rows <= cells // rows <= rows + 2:
            return rows, cells // rows
    return None


def _looks_like_a_move(text: str) -> bool:
    token = text.strip().lower()
    return bool(token) and (token.isdecimal() or bool(_MOVE_NAME.match(token)) or bool(_MOVE_XY.match(token)))


def _separator_hint(text: str, game: Game) -> str | None:
    """What the user probably meant when the board holds separators we do not take."""
    if "\\" in text:
        fixed = text.replace("\\", "/")
        return f"separate rows with '/', not '\\' (did you mean {fixed!r}?)"
    if "," in text or ";" in text:
        cells = re.sub(r"[,;\s]", "", text)
        if len(cells) == game.cells and all(char in _CELL_CHARS for char in cells):
            return f"write the cells without separators (did you mean {cells!r}?)"
        return "write the cells without separators; '/' may separate the rows"
    rows = text.split(" ")
    if len(rows) == game.rows > 1 and all(len(row) == game.columns for row in rows):
        fixed = "/".join(rows)
        return f"a space is an empty cell; separate rows with '/' (did you mean {fixed!r}?)"
    return None


_NORMALIZE: Final = str.maketrans({char: cell for char, cell in _CELL_CHARS.items() if char != cell})
_PLAIN_CHARS: Final = frozenset(_CELL_CHARS)


def normalize_cells(text: str, game: Game) -> str:
    """The game's cells in lowercase from any accepted notation, or InvalidBoardError naming
    the fault (a board of another size says which game it does not fit)."""
    if len(text) == game.cells and _PLAIN_CHARS.issuperset(text):
        return text.translate(_NORMALIZE)
    if _looks_like_a_move(text):
        raise InvalidBoardError(text, f"that is a move, not a board; {_example(game)}")
    hint = _separator_hint(text, game)
    if hint is not None:
        raise InvalidBoardError(text, hint)
    if "/" in text:
        rows = text.split("/")
        if len(rows) != game.rows or any(len(row) != game.columns for row in rows):
            given = len(rows), len(rows[0])
            other = _another_game(*given) if all(len(row) == given[1] for row in rows) and min(given) >= 3 else ""
            raise InvalidBoardError(
                text,
                f"rows separated by '/' must be {game.rows} row{'s' * (game.rows != 1)} of "
                f"{game.columns} cell{'s' * (game.columns != 1)} for {game}{other}",
            )
        raw = "".join(rows)
    else:
        raw = text
    if len(raw) != game.cells:
        what = "" if game == TICTACTOE else f" for {game}"
        shape = _shape_of(len(raw))
        other = _another_game(*shape) if shape is not None else ""
        raise InvalidBoardError(text, f"expected {game.cells} cells{what}, got {len(raw)}; {_example(game)}{other}")
    try:
        return "".join(_CELL_CHARS[char] for char in raw)
    except KeyError as missing:
        raise InvalidBoardError(
            text, f"unexpected character {missing.args[0]!r} (use o, x and . - _ or space for empty)"
        ) from None


def _marks(count: int) -> str:
    return f"{count} mark" if count == 1 else f"{count} marks"


def _in_a_row(game: Game) -> str:
    return "three in a row" if game.k == 3 else f"{game.k} in a row"


def impossibility(cells: str, first: Mark, game: Game) -> str | None:
    """Why no game in which `first` moved first reaches these cells, or None when one does."""
    if winner(cells, game) is None:  # the usual board: no line to look at
        o_lines: list[tuple[int, ...]] = []
        x_lines: list[tuple[int, ...]] = []
    else:
        o_lines, x_lines = winning_lines(cells, "o", game), winning_lines(cells, "x", game)
    if o_lines and x_lines:
        return f"both o and x have {_in_a_row(game)}"
    for mark, lines in (("o", o_lines), ("x", x_lines)):
        if len(lines) > 1 and not set(lines[0]).intersection(*lines[1:]):
            return f"{mark} has winning lines that share no cell, which no single last move makes"
    o_count, x_count = cells.count("o"), cells.count("x")
    if abs(o_count - x_count) > 1:
        return (
            f"o has {_marks(o_count)} and x has {_marks(x_count)}; "
            "the players alternate, so the counts differ by at most one"
        )
    second = other(first)
    if cells.count(second) > cells.count(first):
        return f"{second} has more marks than {first}, so {second} moved first, not {first}"
    last_mover = first if cells.count(first) != cells.count(second) else second
    won: Mark | None = "o" if o_lines else "x" if x_lines else None
    if won is not None and won != last_mover:
        return f"{won} has {_in_a_row(game)}, yet {other(won)} moved after the game was won"
    return None


def first_player(cells: str, first: Mark | None = None) -> Mark:
    """Who moved first: the mark with more marks when the counts differ, else `first` or `o`."""
    o_count, x_count = cells.count("o"), cells.count("x")
    if o_count != x_count and first is None:
        return "o" if o_count > x_count else "x"
    return first or "o"


def plain_boards(texts: Sequence[object], first: Mark | None, game: Game) -> list[Board | None]:
    """`Board.parse(text, first, game)` of each text that is a usual board written plainly (the
    game's cells in 'o', 'x' and '.', no line of k, counts that `first`, when given, allows), checked
    together in arrays (a batch's boards); None for every other text, which Board.parse reads, or
    says what is wrong with."""
    import numpy as np

    found: list[Board | None] = [None] * len(texts)
    n = game.cells
    at = [i for i, text in enumerate(texts) if isinstance(text, str) and len(text) == n and text.isascii()]
    if not at or n > _MOST_PLAIN_CELLS or first not in (None, "o", "x"):
        return found  # (a first player of another name: Board.parse says so)
    cells = [texts[i] for i in at]
    chars = np.frombuffer("".join(cells).encode("ascii"), np.uint8).reshape(len(at), n)  # type: ignore[arg-type]
    o_marks, x_marks = chars == ord("o"), chars == ord("x")
    bits = np.left_shift(np.int64(1), np.arange(n, dtype=np.int64))
    lines = np.asarray(game.line_masks, np.int64)
    o_count, x_count = o_marks.sum(axis=1), x_marks.sum(axis=1)
    usual = (
        (o_marks | x_marks | (chars == ord(EMPTY))).all(axis=1)
        & (np.abs(o_count - x_count) <= 1)
        & ~has_line(o_marks.astype(np.int64) @ bits, lines)
        & ~has_line(x_marks.astype(np.int64) @ bits, lines)
    )
    if first is not None:  # the other side may not have more marks than the first
        usual &= (o_count >= x_count) if first == "o" else (x_count >= o_count)
    for i, text, plain in zip(at, cells, usual.tolist(), strict=True):
        if plain:
            found[i] = Board._validated(text, first_player(text, first), game)  # type: ignore[arg-type]
    return found


_MOST_PLAIN_CELLS: Final = 62
"""The most cells `plain_boards` holds as bits of one integer."""


def has_line(marks: NDArray[np.int64], lines: NDArray[np.int64]) -> NDArray[np.bool_]:
    """Whether each of many boards' cells of one mark (a mask each) hold one of `lines` (masks:
    `Game.line_masks`)."""
    found: NDArray[np.bool_] = ((marks[:, None] & lines) == lines).any(axis=1)
    return found


@dataclass(frozen=True, slots=True)
class Board:
    """A reachable board of an m,n,k-game in the user's marks and orientation.

    `cells` holds the game's cells in reading order; `first` is the mark that moved first.
    """

    cells: str
    first: Mark
    game: Game

    def __post_init__(self) -> None:
        if len(self.cells) != self.game.cells or any(c not in "ox." for c in self.cells):
            raise InvalidBoardError(
                self.cells, f"expected {self.game.cells} characters from 'o', 'x' and '.' for {self.game}"
            )
        if self.first not in ("o", "x"):
            raise InvalidBoardError(self.cells, f"the first player must be 'o' or 'x', not {self.first!r}")
        reason = impossibility(self.cells, self.first, self.game)
        if reason is not None:
            raise ImpossibleBoardError(self.cells, reason)

    @classmethod
    def parse(cls, text: str, first: Mark | None = None, game: Game = TICTACTOE) -> Board:
        """Parse any accepted notation; InvalidBoardError (a ValueError) quotes the input.

        `first` (or a `:o`/`:x` after the cells, as `str(board)` writes it) says who moved first; by
        default the side with more marks, `o` on equal counts.

        >>> Board.parse("ox./.x./...")
        Board(cells='ox..x....', first='x', game=Game(rows=3, columns=3, k=3))
        >>> str(Board.parse("ooo.xx..x", first="x"))
        'ooo.xx..x:x'
        >>> Board.parse("oxo")
        Traceback (most recent call last):
        ttt_db.errors.InvalidBoardError: invalid board 'oxo': expected 9 cells, got 3; ...
        """
        if not isinstance(text, str):
            raise TypeError(f"a board is a string, not {type(text).__name__}")
        written, colon, said = text.rpartition(FIRST_SEPARATOR)
        if colon and said.strip().lower() in ("o", "x"):
            said_first: Mark = "o" if said.strip().lower() == "o" else "x"
            if first is not None and first != said_first:
                raise InvalidBoardError(text, f"the board says {said_first} moved first, but first is {first}")
            cells, first = normalize_cells(written, game), said_first
        elif colon and FIRST_SEPARATOR not in written:
            raise InvalidBoardError(text, f"after {FIRST_SEPARATOR!r} comes who moved first, o or x, not {said!r}")
        else:
            cells = normalize_cells(text, game)
        mover = first_player(cells, first)
        reason = impossibility(cells, mover, game)
        if reason is None:
            return cls._validated(cells, mover, game)
        reachable_with = other(mover) if first is None and impossibility(cells, other(mover), game) is None else None
        if reachable_with is not None:
            reason += f"; it is reachable if {reachable_with} moved first"
        raise ImpossibleBoardError(text, reason, reachable_with_first=reachable_with)

    @classmethod
    def known(cls, cells: str, first: Mark, game: Game) -> Board:
        """A board whose cells are known reachable (the database's, or a legal move's), not checked again."""
        return cls._validated(cells, first, game)

    @classmethod
    def _validated(cls, cells: str, first: Mark, game: Game) -> Board:
        """A board from cells already checked, without checking them again."""
        board = object.__new__(cls)
        object.__setattr__(board, "cells", cells)
        object.__setattr__(board, "first", first)
        object.__setattr__(board, "game", game)
        return board

    @classmethod
    def empty(cls, game: Game, first: Mark = "o") -> Board:
        return cls(game.empty_board, first, game)

    def __str__(self) -> str:
        """The cells, and `:x` when x moved first on equal counts (what the counts cannot say)."""
        implied = first_player(self.cells)
        return self.cells if implied == self.first else f"{self.cells}{FIRST_SEPARATOR}{self.first}"

    def _repr_svg_(self) -> str:
        """The board drawn in a notebook (python-chess's convention), its winning line outlined."""
        from ttt_db.game.drawing import board_svg

        return board_svg(self.cells, self.game, winning=self.winning_cells, title=str(self))

    @property
    def winning_cells(self) -> tuple[int, ...]:
        """The cells of the line (or lines) that won the game, in order; none while it is on or drawn."""
        won = self.status
        if won not in ("o", "x"):
            return ()
        return tuple(sorted({cell for line in winning_lines(self.cells, won, self.game) for cell in line}))

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
        return status(self.cells, self.game)

    @property
    def is_over(self) -> bool:
        return self.status != "playing"

    @property
    def next_player(self) -> Mark:
        """Whose turn it is by the move count, even on a finished board (who would move next)."""
        return mover_at(self.depth, self.first)

    @property
    def to_move(self) -> Mark | None:
        """Who moves next, or None when the game is over."""
        return None if self.is_over else self.next_player

    @property
    def depth(self) -> int:
        """How many moves have been made."""
        return self.game.cells - self.cells.count(EMPTY)

    def legal_moves(self) -> tuple[int, ...]:
        return legal_moves(self.cells, self.game)

    def push(self, move: int) -> Board:
        """The board after the side to move takes `move`; InvalidMoveError if it is not legal."""
        mover = self.to_move
        if mover is None:
            raise InvalidMoveError(str(move), f"the game on {self.cells!r} is over")
        if move not in range(self.game.cells):
            raise InvalidMoveError(str(move), f"cells are numbered 0 to {self.game.cells - 1}")
        if self.cells[move] != EMPTY:
            raise InvalidMoveError(move_name(move, self.game), f"cell {move} is taken by {self.cells[move]}")
        return Board(play(self.cells, move, mover), self.first, self.game)


def parse_move(text: str, game: Game) -> int:
    """A cell index (`0`-`8` on 3x3), a name like `b3`, or `x,y` (column, row, both counted
    from 0). Raises InvalidMoveError naming the accepted range."""
    token = text.strip().lower()
    last = game.cells - 1
    if token.isdecimal():
        move = int(token)
        if move > last:
            raise InvalidMoveError(text, f"cells are numbered 0 to {last}")
        return move
    named = _MOVE_NAME.match(token)
    if named:
        move_or_none = game.move_from_name(token)
        if move_or_none is None:
            raise InvalidMoveError(
                text,
                f"cell names run from a1 to {game.move_name(last)} "
                f"(column a-{game.move_name(last)[0]}, row 1-{game.rows} from the top)",
            )
        return move_or_none
    pair = _MOVE_XY.match(token)
    if pair:
        x, y = int(pair.group(1)), int(pair.group(2))
        if not (0 <= x < game.columns and 0 <= y < game.rows):
            raise InvalidMoveError(
                text,
                f"x,y is column,row counted from 0 at the top left: x is 0-{game.columns - 1}, y is 0-{game.rows - 1}",
            )
        return x + game.columns * y
    raise InvalidMoveError(text, f"expected a cell index 0-{last}, a name like b3, or x,y (column,row from 0)")
