"""The rules of the m,n,k-games on plain strings (`o`, `x`, `.`), for the hot paths.

These functions assume a well-formed board of `game` (tic-tac-toe unless given);
`ttt_db.game.board.Board` is the validating type; the game's lines and cells are its `Game`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Final, Literal

from ttt_db.game.definition import Game

Mark = Literal["o", "x"]
Status = Literal["playing", "o", "x", "draw"]
Value = Literal["win", "draw", "loss"]

EMPTY: Final = "."
_SWAP_MARKS: Final = str.maketrans("ox", "xo")


def winner(cells: str, game: Game) -> Mark | None:
    """The mark with K in a row, or None (the first found if, impossibly, both have one)."""
    if game.k == 3:  # tic-tac-toe's own loop: the hottest path of the small games
        for a, b, c in game.lines:
            mark = cells[a]
            if mark != EMPTY and mark == cells[b] == cells[c]:
                return mark  # type: ignore[return-value]
        return None
    o_row, x_row = "o" * game.k, "x" * game.k
    for line in _line_slices(game):
        marks = cells[line]
        if marks == o_row:
            return "o"
        if marks == x_row:
            return "x"
    return None


def winning_lines(cells: str, mark: Mark, game: Game) -> list[tuple[int, ...]]:
    """Every line on which `mark` has K in a row."""
    row = mark * game.k
    return [line for line, marks in zip(game.lines, _line_slices(game), strict=True) if cells[marks] == row]


@cache
def _line_slices(game: Game) -> list[slice]:
    """For each line, the slice of a board's text that reads its marks (a line's cells are evenly
    spaced, in order: one slice copies them in one step)."""
    return [slice(line[0], line[-1] + 1, line[1] - line[0] if len(line) > 1 else 1) for line in game.lines]


def status(cells: str, game: Game) -> Status:
    """`o` or `x` when that side has won, `draw` on a full board, else `playing`."""
    won = winner(cells, game)
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


def moves_reaching(cells: str) -> list[int]:
    """A move order from the empty board to a board of `cells` (o first): o's and x's marks taken
    alternately in index order. Another program's game is set up by it (OpenSpiel, PettingZoo)."""
    marks = {mark: [cell for cell, char in enumerate(cells) if char == mark] for mark in ("o", "x")}
    return [marks[mover_at(ply)][ply // 2] for ply in range(len(marks["o"]) + len(marks["x"]))]


def empty_cells(cells: str) -> tuple[int, ...]:
    return tuple(i for i, char in enumerate(cells) if char == EMPTY)


def legal_moves(cells: str, game: Game) -> tuple[int, ...]:
    """The empty cells of a game still on; none once somebody has won."""
    if winner(cells, game) is not None:
        return ()
    return empty_cells(cells)


def play(cells: str, move: int, mark: Mark) -> str:
    """The board after `mark` takes cell `move` (no legality check)."""
    return cells[:move] + mark + cells[move + 1 :]


def replay(moves: Sequence[int], game: Game) -> list[str]:
    """The boards after each move of a sequence from the empty board (o first)."""
    boards = [game.empty_board]
    for number, move in enumerate(moves):
        boards.append(play(boards[-1], move, mover_at(number)))
    return boards


def swap_marks(cells: str) -> str:
    """The same board with `o` and `x` exchanged."""
    return cells.translate(_SWAP_MARKS)


def final_score(board_status: Status, moves_made: int, *, shortest: bool = False, cells: int = 9) -> int:
    """The score of a finished game from o's side: 1, 0, -1; with `shortest`, the
    shortest-victory score on a board of n cells, (n + 2 - m) / 2 for an o win at move m and
    (m - n - 1) / 2 for x (on 3x3: (11 - m) / 2 and (m - 10) / 2), so a faster win scores more."""
    if board_status == "o":
        return (cells + 2 - moves_made) // 2 if shortest else 1
    if board_status == "x":
        return (moves_made - cells - 1) // 2 if shortest else -1
    return 0


STATUSES: Final[tuple[Status, ...]] = ("playing", "o", "x", "draw")
"""Every status a board can have, in the order of the builder's and the checksums' status codes."""
VALUES: Final[tuple[Value, ...]] = ("loss", "draw", "win")
"""The values a player can have, worst first: `value_rank` orders them."""
_BEST_FIRST: Final = VALUES[::-1]
_OPPOSITE: Final[dict[Value, Value]] = {"win": "loss", "draw": "draw", "loss": "win"}


def value_rank(value: Value) -> int:
    """0 for a loss, 1 for a draw, 2 for a win: the higher, the better for the player."""
    return VALUES.index(value)


def opposite_value(value: Value) -> Value:
    """What the other player has when one has `value`."""
    return _OPPOSITE[value]


def score_seen_by(score: int, mark: Mark, side: Mark = "o") -> int:
    """A score on `side`'s side (o's unless given: the higher, the better for `side`) as `mark`
    sees it: the one place a score changes sides."""
    return score if mark == side else -score


def value_score(value: Value) -> int:
    """-1 for a loss, 0 for a draw, 1 for a win: a value as a score on its player's side."""
    return value_rank(value) - 1


def result_for(board_status: Status, mark: Mark) -> Value | None:
    """What a finished game is for `mark`: `win`, `loss` or `draw`; None while it is on."""
    if board_status == "playing":
        return None
    return "draw" if board_status == "draw" else "win" if board_status == mark else "loss"


def best_first(value: Value, remoteness: int) -> tuple[int, int]:
    """A sort key putting a player's better outcomes first: wins, fastest first; draws; losses,
    slowest first (`remoteness`: the plies left)."""
    return -value_rank(value), remoteness if value != "loss" else -remoteness


def keeping_and_fastest(
    moves: Sequence[tuple[int, Value, int]],
) -> tuple[Value, tuple[int, ...], tuple[int, ...], int]:
    """From each legal move's (move, value for the mover, plies left after it), at least one: the
    best value, the moves that keep it, those of them that also win fastest or lose slowest (all
    of them on a draw), and the plies the kept moves leave (the fewest on a win, else the most)."""
    values = {value for _, value, _ in moves}
    for best in _BEST_FIRST:  # moves is not empty: one of them is there
        if best in values:
            break
    keeping = [(move, after) for move, value, after in moves if value == best]
    afters = [after for _, after in keeping]
    plies = min(afters) if best == "win" else max(afters)
    kept = tuple([move for move, _ in keeping])
    if best == "draw":
        return best, kept, kept, plies
    return best, kept, tuple([move for move, after in keeping if after == plies]), plies


def shortest_victory(value: Value, mover: Mark, plies: int, cells: int) -> int:
    """The shortest-victory score, from o's side, of a game in which `mover`, to move, gets
    `value` and the game ends after `plies` moves in all."""
    if value == "draw":
        return 0
    return final_score(mover if value == "win" else other(mover), plies, shortest=True, cells=cells)


def move_name(move: int, game: Game) -> str:
    """Human name of a cell: column letter, row number from the top (on 3x3, 0 -> a1, 7 -> b3)."""
    return game.move_name(move)
