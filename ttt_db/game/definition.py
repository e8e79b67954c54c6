"""The m,n,k family: a game is `RxCkK`, R rows by C columns where K in a row wins, `o` first.

`Game` holds the geometry every other module asks for: its cells, its winning lines, the
symmetries of its board as index permutations (8 for a square, 4 for a rectangle), cell names,
and the integer key of a board. Tic-tac-toe is `TICTACTOE`, the game `3x3k3`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any, Final

from ttt_db.errors import UnknownGameError

_COLUMN_LETTERS: Final = "abcdefghijklmnop"
_GAME_PATTERN: Final = re.compile(r"\s*(\d+)\s*x\s*(\d+)\s*k\s*(\d+)\s*", re.IGNORECASE)

Permutation = tuple[int, ...]


def _compose(outer: Permutation, inner: Permutation) -> Permutation:
    """The permutation that applies `inner` to the board, then `outer` to the result."""
    return tuple(inner[i] for i in outer)


def _invert(perm: Permutation) -> Permutation:
    inverse = [0] * len(perm)
    for image_index, source_index in enumerate(perm):
        inverse[source_index] = image_index
    return tuple(inverse)


@dataclass(frozen=True)
class Game:
    """One m,n,k-game. A transform `t` maps a board to its image with
    `image[i] == board[transforms[t][i]]`; `inverses[t]` undoes it. `line_partners[c]` holds,
    for each line through cell `c`, its other K-1 cells: a move at `c` wins when the mover
    holds all of them."""

    rows: int
    columns: int
    k: int
    lines: tuple[tuple[int, ...], ...] = field(init=False, repr=False, compare=False)
    transforms: tuple[Permutation, ...] = field(init=False, repr=False, compare=False)
    inverses: tuple[Permutation, ...] = field(init=False, repr=False, compare=False)
    line_partners: tuple[tuple[tuple[int, ...], ...], ...] = field(init=False, repr=False, compare=False)
    cell_names: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if min(self.rows, self.columns, self.k) < 1 or self.k > max(self.rows, self.columns):
            raise UnknownGameError(self.name, "rows, columns and K must be positive, K at most the longer side")
        if self.rows > len(_COLUMN_LETTERS) or self.columns > len(_COLUMN_LETTERS):
            raise UnknownGameError(self.name, f"a side has at most {len(_COLUMN_LETTERS)} cells")
        transforms = self._symmetries()
        lines = self._lines()
        object.__setattr__(self, "lines", lines)
        object.__setattr__(
            self,
            "line_partners",
            tuple(
                tuple(tuple(other for other in line if other != cell) for line in lines if cell in line)
                for cell in range(self.cells)
            ),
        )
        object.__setattr__(self, "transforms", transforms)
        object.__setattr__(self, "inverses", tuple(_invert(t) for t in transforms))
        object.__setattr__(
            self,
            "cell_names",
            tuple(_COLUMN_LETTERS[cell % self.columns] + str(cell // self.columns + 1) for cell in range(self.cells)),
        )

    @classmethod
    def parse(cls, text: str) -> Game:
        """`3x3k3`, `4x4k4`, ... (case and spaces ignored); UnknownGameError quoting the text."""
        match = _GAME_PATTERN.fullmatch(text)
        if match is None:
            raise UnknownGameError(text, "a game is written RxCkK: rows x columns, K in a row, as in 4x4k4")
        rows, columns, k = (int(group) for group in match.groups())
        return _made(rows, columns, k)

    @cached_property
    def name(self) -> str:
        return f"{self.rows}x{self.columns}k{self.k}"

    @cached_property
    def line_masks(self) -> tuple[int, ...]:
        """Each winning line as a mask of its cells (bit c for cell c), in `lines`' order."""
        return tuple(sum(1 << cell for cell in line) for line in self.lines)

    def __str__(self) -> str:
        return self.name

    @property
    def cells(self) -> int:
        return self.rows * self.columns

    @property
    def empty_board(self) -> str:
        return "." * self.cells

    @property
    def square(self) -> bool:
        return self.rows == self.columns

    def _index(self, row: int, column: int) -> int:
        return row * self.columns + column

    def _lines(self) -> tuple[tuple[int, ...], ...]:
        """Every K cells in a row, column or diagonal: rows, columns, diagonals, anti-diagonals."""
        found: list[tuple[int, ...]] = []
        for step_row, step_column in ((0, 1), (1, 0), (1, 1), (1, -1)):
            for row in range(self.rows):
                for column in range(self.columns):
                    end_row = row + step_row * (self.k - 1)
                    end_column = column + step_column * (self.k - 1)
                    if 0 <= end_row < self.rows and 0 <= end_column < self.columns:
                        found.append(
                            tuple(self._index(row + step_row * i, column + step_column * i) for i in range(self.k))
                        )
        return tuple(dict.fromkeys(found))  # K = 1 finds each cell four times

    def _symmetries(self) -> tuple[Permutation, ...]:
        """Rotations, then the mirrored rotations (square); identity, half turn, mirrors (rectangle)."""
        rows, columns = self.rows, self.columns
        identity = tuple(range(self.cells))
        mirror = tuple(self._index(r, columns - 1 - c) for r in range(rows) for c in range(columns))
        if not self.square:
            flip = tuple(self._index(rows - 1 - r, c) for r in range(rows) for c in range(columns))
            return identity, _compose(flip, mirror), mirror, flip
        rotate = tuple(self._index(rows - 1 - c, r) for r in range(rows) for c in range(columns))
        rotations = [identity]
        for _ in range(3):
            rotations.append(_compose(rotate, rotations[-1]))
        return tuple(rotations + [_compose(mirror, rotation) for rotation in rotations])

    def to_document(self) -> dict[str, Any]:
        """The game as JSON: its name, size, K, empty board, cell names and winning lines."""
        return {
            "game": self.name,
            "rows": self.rows,
            "columns": self.columns,
            "k": self.k,
            "cells": self.cells,
            "empty_board": self.empty_board,
            "cell_names": list(self.cell_names),
            "lines": [list(line) for line in self.lines],
        }

    # --- cell names ----------------------------------------------------------------------

    def move_name(self, move: int) -> str:
        """Column letter, then row number from the top: on 3x3, 0 -> a1 and 7 -> b3."""
        return self.cell_names[move]

    def move_label(self, move: int) -> str:
        """`4 (b2)`: the index, then the name, as every text tells a move."""
        return f"{move} ({self.cell_names[move]})"

    def move_from_name(self, name: str) -> int | None:
        """The index of a cell name such as `b3`, or None when it names no cell of this board."""
        name = name.strip().lower()
        if len(name) < 2 or not name[1:].isdecimal():
            return None
        column = _COLUMN_LETTERS.find(name[0])
        row = int(name[1:]) - 1
        if not 0 <= column < self.columns or not 0 <= row < self.rows:
            return None
        return self._index(row, column)

    # --- keys: a board as an integer ------------------------------------------------------

    def key(self, cells: str) -> int:
        """The board as a base-3 number, cell 0 the most significant digit (`.` 0, `o` 1,
        `x` 2): keys order boards as their strings do, so the smallest image's key is smallest."""
        value = 0
        for char in cells:
            value = value * 3 + _DIGITS[char]
        return value

    def board_of(self, key: int) -> str:
        """The board text of a key (the inverse of `key`)."""
        chars = []
        for _ in range(self.cells):
            key, digit = divmod(key, 3)
            chars.append(".ox"[digit])
        return "".join(reversed(chars))


_DIGITS: Final = {".": 0, "o": 1, "x": 2}


@lru_cache(maxsize=64)
def _made(rows: int, columns: int, k: int) -> Game:
    """A game's tables (lines, symmetries) made once per process for every parse that names it."""
    return Game(rows, columns, k)


TICTACTOE: Final = Game.parse("3x3k3")
DEFAULT_GAME: Final = TICTACTOE


def boards_of_keys(keys: list[int], game: Game) -> list[str]:
    """The board texts of many keys; vectorised for long lists (numpy is imported only then)."""
    if len(keys) < 50_000:
        return [game.board_of(key) for key in keys]
    import numpy as np

    powers = 3 ** np.arange(game.cells - 1, -1, -1, dtype=np.int64)
    digits = (np.asarray(keys, dtype=np.int64)[:, None] // powers) % 3
    chars = np.frombuffer(b".ox", dtype=np.uint8)[digits]
    text = chars.astype(np.uint8).tobytes().decode("ascii")
    width = game.cells
    return [text[i : i + width] for i in range(0, len(text), width)]
