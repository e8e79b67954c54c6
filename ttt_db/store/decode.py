"""Decoding stored content defensively: every value read from the database is checked against
what the build can have written, so a damaged file raises `DatabaseDamagedError` instead of
crashing or answering wrongly (a move off the board, odds over zero, an unknown side to move)."""

from __future__ import annotations

import sys
import zlib
from array import array
from collections.abc import Sequence
from itertools import accumulate
from math import factorial
from typing import Any

from ttt_db.errors import DatabaseDamagedError
from ttt_db.game.definition import TICTACTOE, Game
from ttt_db.game.rules import (
    EMPTY,
    STATUSES,
    VALUES,
    Value,
    final_score,
    keeping_and_fastest,
    mover_at,
    shortest_victory,
    side_to_move,
    status,
    value_for_mover,
)
from ttt_db.game.symmetry import canonical_board, orbit_size
from ttt_db.store.encoding import REMOTENESS_BITS, REMOTENESS_MASK


def board_of_key(key: object, where: str, game: Game) -> str:
    """The board a stored key stands for, or DatabaseDamagedError when it is no key of `game`."""
    if type(key) is not int or not 0 <= key < 3**game.cells:
        raise DatabaseDamagedError(f"key {key!r} is not a {game} board's key", where)
    return game.board_of(key)


def whole_number(value: object, what: str, where: str, low: int, high: int) -> int:
    if type(value) is not int or not low <= value <= high:
        raise DatabaseDamagedError(f"{what} is {value!r}, not a whole number from {low} to {high}", where)
    return value


def one_of(value: object, allowed: frozenset[str], what: str, where: str) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise DatabaseDamagedError(f"{what} is {value!r}, not one of {', '.join(sorted(allowed))}", where)
    return value


def moves_of_mask(board: str, mask: object, what: str, where: str) -> tuple[int, ...]:
    """The cells of a stored bit mask (`ttt_db.store.encoding`), each an empty cell of `board`."""
    cells = len(board)
    if type(mask) is not int or not 0 <= mask < 1 << cells:
        raise DatabaseDamagedError(f"{what} is {mask!r}, not a mask of {cells} cells", where)
    moves = tuple(cell for cell in range(cells) if mask >> cell & 1)
    for move in moves:
        if board[move] != EMPTY:
            raise DatabaseDamagedError(f"{what} holds {move}, a cell taken by {board[move]}", where)
    return moves


def playout_counts(row: Any, depth: int, cells: int, where: str) -> tuple[int, int, int, int]:
    """(o wins, x wins, draws, ways): whole numbers of the (cells - depth)! move orders, adding up to them."""
    ways = factorial(cells - depth)
    counts = (row.o_wins, row.x_wins, row.draws)
    if any(type(n) is not int or n < 0 for n in counts) or sum(counts) != ways:
        raise DatabaseDamagedError(f"playout {list(counts)!r} does not add up to the {ways:,} move orders", where)
    return row.o_wins, row.x_wins, row.draws, ways


def move_values(board: str, blob: object, where: str) -> list[tuple[int, Value, int]]:
    """(move, value for the mover, remoteness after it) for the cells with a move, from a byte per cell."""
    if not isinstance(blob, bytes | bytearray | memoryview) or len(blob) != len(board):
        raise DatabaseDamagedError(f"move values are not {len(board)} bytes", where)
    decoded: list[tuple[int, Value, int]] = []
    for cell, byte in enumerate(bytes(blob)):
        if byte == 0:  # a taken cell, or no moves at all (a finished game)
            continue
        if board[cell] != EMPTY:
            raise DatabaseDamagedError(f"a move value for cell {cell}, taken by {board[cell]}", where)
        rank = (byte >> REMOTENESS_BITS) - 1
        remoteness = byte & REMOTENESS_MASK
        if not 0 <= rank < len(VALUES) or remoteness > len(board):
            raise DatabaseDamagedError(f"the value of move {cell} is byte {byte}, not a value and remoteness", where)
        decoded.append((cell, VALUES[rank], remoteness))
    return decoded


def check_row_rules(board: str, row: Any, where: str, game: Game = TICTACTOE) -> None:
    """The scalar columns against the board itself: key, symmetry, depth, status, side to
    move, ranges."""
    n = game.cells
    if board != canonical_board(board, game):
        raise DatabaseDamagedError("the board is not the smallest of its symmetric images", where)
    whole_number(row.orbit, "orbit", where, orbit_size(board, game), orbit_size(board, game))
    depth = whole_number(row.depth, "depth", where, 0, n)
    if depth != n - board.count(EMPTY):
        raise DatabaseDamagedError(f"depth {depth} for {n - board.count(EMPTY)} marks", where)
    board_status = one_of(row.status, frozenset(STATUSES), "status", where)
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


def check_row_agrees(
    board: str,
    row: Any,
    analyses: Sequence[tuple[int, Value, int]],
    best: tuple[int, ...],
    shortest: tuple[int, ...],
    game: Game,
    where: str,
) -> None:
    """The row's answers against each other: value, score, remoteness, shortest-victory score and
    best moves all follow from the status of a finished board, or from the values of the moves."""
    depth = row.depth
    mover = mover_at(depth)
    if row.value != value_for_mover(row.score, mover):
        raise DatabaseDamagedError(f"value {row.value!r} beside score {row.score} ({mover} to move)", where)
    if row.status != "playing":
        expected = (final_score(row.status, depth), 0, final_score(row.status, depth, shortest=True, cells=game.cells))
        found = (row.score, row.remoteness, row.sv_score)
        if found != expected:
            raise DatabaseDamagedError(f"score, remoteness, shortest-victory score {found} on a finished board", where)
        return
    best_value, keeping, fastest, plies = keeping_and_fastest(analyses)
    if best_value != row.value:
        raise DatabaseDamagedError(f"value {row.value!r}, but the best move is a {best_value}", where)
    if set(best) != set(keeping):
        raise DatabaseDamagedError(
            f"best moves {list(best)}, but the moves that keep the value are {sorted(keeping)}", where
        )
    if row.remoteness != plies + 1:
        raise DatabaseDamagedError(f"remoteness {row.remoteness}, but the best moves leave {plies} plies", where)
    expected_sv = shortest_victory(row.value, mover, depth + row.remoteness, game.cells)
    if row.sv_score != expected_sv:
        raise DatabaseDamagedError(f"shortest-victory score {row.sv_score}, but the value says {expected_sv}", where)
    if shortest != fastest:
        raise DatabaseDamagedError(f"shortest best moves {list(shortest)}, but the values say {list(fastest)}", where)


def node_list_keys(blob: object, size: object, what: str, where: str, game: Game) -> list[int]:
    """An encoded node list (`ttt_db.store.encoding`): `size` board keys of `game`."""
    if not isinstance(blob, bytes | bytearray | memoryview):
        raise DatabaseDamagedError(f"{what} is {type(blob).__name__}, not packed bytes", where)
    try:
        raw = zlib.decompress(bytes(blob))
    except zlib.error:
        raise DatabaseDamagedError(f"{what} does not decompress", where) from None
    if len(raw) % 4 or len(raw) // 4 != size:
        raise DatabaseDamagedError(f"{what} holds {len(raw) / 4:g} keys, not its size {size!r}", where)
    deltas = array("i")
    deltas.frombytes(raw)
    if sys.byteorder == "big":
        deltas.byteswap()
    keys = list(accumulate(deltas))
    limit = 3**game.cells
    if keys and not (min(keys) >= 0 and max(keys) < limit):
        raise DatabaseDamagedError(f"{what} is not a list of board keys", where)
    return keys


def require_keys(meta: dict[str, Any], keys: Sequence[str], where: str) -> None:
    for key in keys:
        if key not in meta:
            raise DatabaseDamagedError(f"meta entry {key!r} is missing", where)
