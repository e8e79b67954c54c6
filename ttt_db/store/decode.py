"""Decoding stored content defensively: every value read from the database is checked against
what the build can have written, so a damaged file raises `DatabaseDamagedError` instead of
crashing or answering wrongly (a move off the board, odds over zero, an unknown side to move)."""

from __future__ import annotations

from collections.abc import Sequence
from math import factorial
from typing import Any

import msgpack

from ttt_db.errors import DatabaseDamagedError
from ttt_db.game.definition import TICTACTOE, Game
from ttt_db.game.rules import EMPTY, VALUES, side_to_move, status
from ttt_db.game.symmetry import canonical_board, orbit_size

STATUSES = frozenset({"playing", "o", "x", "draw"})
_BOARD_CHARS = frozenset("ox.")


def is_board_text(value: object, game: Game = TICTACTOE) -> bool:
    return isinstance(value, str) and len(value) == game.cells and set(value) <= _BOARD_CHARS


def unpack(blob: object, what: str, where: str) -> Any:
    """A msgpack blob decoded, or DatabaseDamagedError naming it."""
    if not isinstance(blob, bytes | bytearray | memoryview):
        raise DatabaseDamagedError(f"{what} is {type(blob).__name__}, not packed bytes", where)
    try:
        return msgpack.unpackb(bytes(blob))
    except Exception as error:  # msgpack raises several unrelated types on bad input
        raise DatabaseDamagedError(f"{what} does not decode ({type(error).__name__})", where) from None


def whole_number(value: object, what: str, where: str, low: int, high: int) -> int:
    if type(value) is not int or not low <= value <= high:
        raise DatabaseDamagedError(f"{what} is {value!r}, not a whole number from {low} to {high}", where)
    return value


def one_of(value: object, allowed: frozenset[str], what: str, where: str) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise DatabaseDamagedError(f"{what} is {value!r}, not one of {', '.join(sorted(allowed))}", where)
    return value


def moves_on(board: str, value: object, what: str, where: str) -> tuple[int, ...]:
    """A list of distinct empty cells of `board`, or DatabaseDamagedError."""
    if not isinstance(value, list):
        raise DatabaseDamagedError(f"{what} is {type(value).__name__}, not a list of moves", where)
    for move in value:
        if type(move) is not int or not 0 <= move < len(board):
            raise DatabaseDamagedError(f"{what} holds {move!r}, not a cell 0-{len(board) - 1}", where)
        if board[move] != EMPTY:
            raise DatabaseDamagedError(f"{what} holds {move}, a cell taken by {board[move]}", where)
    if len(set(value)) != len(value):
        raise DatabaseDamagedError(f"{what} repeats a move", where)
    return tuple(value)


def playout_counts(value: object, where: str) -> tuple[int, int, int, int]:
    """[o wins, x wins, draws, ways] with the three results adding up to a positive total."""
    if not isinstance(value, list) or len(value) != 4 or any(type(n) is not int or n < 0 for n in value):
        raise DatabaseDamagedError(f"playout is {value!r}, not four whole numbers", where)
    o_wins, x_wins, draws, ways = value
    if ways == 0 or o_wins + x_wins + draws != ways:
        raise DatabaseDamagedError(f"playout odds {value!r} do not add up to one", where)
    return o_wins, x_wins, draws, ways


def move_values(board: str, value: object, where: str) -> list[tuple[int, str, int]]:
    """[[move, value for the mover, remoteness after it], ...] over exactly the empty cells."""
    if not isinstance(value, list) or any(not isinstance(item, list) or len(item) != 3 for item in value):
        raise DatabaseDamagedError("move values are not [move, value, remoteness] triples", where)
    moves = moves_on(board, [item[0] for item in value], "move values", where)
    decoded = []
    for move, item in zip(moves, value, strict=True):
        decoded.append(
            (
                move,
                one_of(item[1], frozenset(VALUES), f"the value of move {move}", where),
                whole_number(item[2], f"the remoteness after move {move}", where, 0, len(board)),
            )
        )
    return decoded


def check_row_rules(board: str, row: Any, where: str, game: Game = TICTACTOE) -> None:
    """The scalar columns against the board itself: key, symmetry, depth, status, side to
    move, ranges."""
    n = game.cells
    if row.key != game.key(board):
        raise DatabaseDamagedError(f"key {row.key!r} is not the key of the board", where)
    if board != canonical_board(board, game):
        raise DatabaseDamagedError("the board is not the smallest of its symmetric images", where)
    whole_number(row.orbit, "orbit", where, orbit_size(board, game), orbit_size(board, game))
    depth = whole_number(row.depth, "depth", where, 0, n)
    if depth != n - board.count(EMPTY):
        raise DatabaseDamagedError(f"depth {depth} for {n - board.count(EMPTY)} marks", where)
    board_status = one_of(row.status, STATUSES, "status", where)
    if board_status != status(board, game):
        raise DatabaseDamagedError(f"status {board_status!r} but the board says {status(board, game)!r}", where)
    expected_mover = side_to_move(board) if board_status == "playing" else None
    if row.to_move != expected_mover:
        raise DatabaseDamagedError(f"side to move {row.to_move!r}, expected {expected_mover!r}", where)
    whole_number(row.score, "score", where, -1, 1)
    whole_number(row.sv_score, "shortest-victory score", where, -(n + 1) // 2, (n + 1) // 2)
    whole_number(row.remoteness, "remoteness", where, 0, n - depth)
    whole_number(row.paths, "paths", where, 1, factorial(n))
    one_of(row.value, frozenset(VALUES), "value", where)


def keys_list(value: object, what: str, where: str, game: Game) -> list[int]:
    """A list of board keys of `game` (each a whole number below 3 to the cells)."""
    limit = 3**game.cells
    if not isinstance(value, list) or not all(type(key) is int and 0 <= key < limit for key in value):
        raise DatabaseDamagedError(f"{what} is not a list of board keys", where)
    return value


def require_keys(meta: dict[str, Any], keys: Sequence[str], where: str) -> None:
    for key in keys:
        if key not in meta:
            raise DatabaseDamagedError(f"meta entry {key!r} is missing", where)
