"""The rules of tic-tac-toe on plain 9-character strings (`o`, `x`, `.`), for the hot paths.

These functions assume a well-formed board; `ttt_db.board.Board` is the validating type.
"""

from __future__ import annotations

from typing import Final, Literal

Mark = Literal["o", "x"]
Status = Literal["playing", "o", "x", "draw"]

EMPTY: Final = "."
EMPTY_BOARD: Final = "........."
CELLS: Final = range(9)
LINES: Final[tuple[tuple[int, int, int], ...]] = (
    (0, 1, 2), (3, 4, 5), (6, 7, 8),  # rows
    (0, 3, 6), (1, 4, 7), (2, 5, 8),  # columns
    (0, 4, 8), (2, 4, 6),  # diagonals
)
LINES_THROUGH: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(n for n, line in enumerate(LINES) if cell in line) for cell in CELLS
)
LINE_PARTNERS: Final[tuple[tuple[tuple[int, int], ...], ...]] = tuple(
    tuple((a, b) for line in LINES if cell in line for a, b in [[c for c in line if c != cell]])
    for cell in CELLS
)
"""For each cell, the other two cells of every line through it: a move completes a line
when the mover holds both partners."""
_SWAP_MARKS: Final = str.maketrans("ox", "xo")


def winner(cells: str) -> Mark | None:
    """The mark with three in a row, or None (the first found if, impossibly, both have one)."""
    for a, b, c in LINES:
        mark = cells[a]
        if mark != EMPTY and mark == cells[b] == cells[c]:
            return mark  # type: ignore[return-value]
    return None


def winning_lines(cells: str, mark: Mark) -> list[tuple[int, int, int]]:
    """Every line on which `mark` has three in a row."""
    return [line for line in LINES if cells[line[0]] == cells[line[1]] == cells[line[2]] == mark]


def status(cells: str) -> Status:
    """`o` or `x` when that side has won, `draw` on a full board, else `playing`."""
    won = winner(cells)
    if won is not None:
        return won
    return "playing" if EMPTY in cells else "draw"


def other(mark: Mark) -> Mark:
    return "x" if mark == "o" else "o"


def mover_at(plies: int, first: Mark = "o") -> Mark:
    """Who makes the next move after `plies` moves have been made, `first` having moved first."""
    return first if plies % 2 == 0 else other(first)


def side_to_move(cells: str) -> Mark:
    """Whose turn it is when `o` moved first (o to move on equal counts)."""
    return "o" if cells.count("o") == cells.count("x") else "x"


def empty_cells(cells: str) -> tuple[int, ...]:
    return tuple(i for i in CELLS if cells[i] == EMPTY)


def legal_moves(cells: str) -> tuple[int, ...]:
    """The empty cells of a game still on; none once somebody has won."""
    if winner(cells) is not None:
        return ()
    return empty_cells(cells)


def play(cells: str, move: int, mark: Mark) -> str:
    """The board after `mark` takes cell `move` (no legality check)."""
    return cells[:move] + mark + cells[move + 1 :]


def swap_marks(cells: str) -> str:
    """The same board with `o` and `x` exchanged."""
    return cells.translate(_SWAP_MARKS)


def final_score(board_status: Status, moves_made: int, *, shortest: bool = False) -> int:
    """The score of a finished game from o's side: 1, 0, -1; with `shortest`, the
    shortest-victory score, (11 - m) / 2 for an o win at move m and (m - 10) / 2 for x."""
    if board_status == "o":
        return (11 - moves_made) // 2 if shortest else 1
    if board_status == "x":
        return (moves_made - 10) // 2 if shortest else -1
    return 0


def value_for_mover(score: int, mover: Mark) -> str:
    """`win`, `draw` or `loss` for `mover`, from a score on o's side."""
    signed = score if mover == "o" else -score
    return "win" if signed > 0 else "loss" if signed < 0 else "draw"


def move_name(move: int) -> str:
    """Human name of a cell: column letter a-c, row number 1-3 from the top (0 -> a1, 7 -> b3)."""
    return "abc"[move % 3] + str(move // 3 + 1)
