"""The plain table `ttt_positions` read back: a decision class a row, for the small games' checks,
and the best moves of every board in play, for their lookup AIs.

A game whose build wrote the plain tables (`ttt_db.store.plain`) has a row per symmetry class at
its canonical board, with its best and fastest moves and every move's value and remoteness. Where
a read is pinned those rows are held to the hashes the digest covers at open
(`SolutionDatabase.plain_rows_held`), and a check or a lookup AI of a small game reads them here
instead of walking the core's levels through interpreted kernels
(`SolutionDatabase.reads_plain_rows`). Light on purpose: sqlite3 and msgpack only.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import groupby
from operator import itemgetter
from typing import Any, NamedTuple

import msgpack

from ttt_db.errors import DatabaseDamagedError
from ttt_db.game.rules import EMPTY, VALUES
from ttt_db.store.reader import Reader
from ttt_db.store.tables import POSITIONS

_RANK = {value: rank for rank, value in enumerate(VALUES)}


class DecisionClass(NamedTuple):
    """A class of decision positions (some move loses value) at its canonical board: how many
    boards it has and its best moves; its fastest moves, where they were read (`decision_levels`),
    and its every legal move (a failure's) decoded when asked. A named tuple: a check makes one
    per row it reads."""

    board: str
    orbit: int
    best: tuple[int, ...]
    packed_fastest: bytes | None  # None where `decision_levels` was not asked to read them
    packed_moves: bytes

    @property
    def fastest(self) -> tuple[int, ...]:
        assert self.packed_fastest is not None, "decision_levels(fastest=True) reads them"
        return tuple(_unpacked(self.packed_fastest, self.board))

    @property
    def moves(self) -> tuple[tuple[int, int, int], ...]:
        """Every legal move as (cell, value rank in `VALUES`, plies left after it), in cell order."""
        try:
            return tuple((cell, _RANK[value], after) for cell, value, after in _unpacked(self.packed_moves, self.board))
        except (ValueError, TypeError, KeyError):
            raise _damaged(self.board) from None


def decision_levels(reader: Reader, *, fastest: bool = False) -> Iterator[tuple[int, list[DecisionClass]]]:
    """Each depth that has decision positions, shallowest first, with its classes in key order
    (a lost position is none: every move loses); their fastest moves read only where `fastest`
    (a column most checks never decode)."""
    fastest_column = "best_moves_shortest" if fastest else "NULL"
    rows = reader.tuples(  # read whole (a small game's): no cursor stays open while an AI answers
        f"SELECT depth, board, orbit, best_moves, {fastest_column}, moves FROM {POSITIONS} "
        "WHERE to_move IS NOT NULL AND value != 'loss' ORDER BY key"  # the table's order: no sort in SQLite
    )
    rows.sort(key=itemgetter(0))  # by depth, each depth's rows still in key order
    make, unpack = DecisionClass._make, msgpack.unpackb  # held to their hashes: as typed
    for depth, level in groupby(rows, key=itemgetter(0)):
        found = []
        board = ""
        try:
            for _, board, orbit, packed, packed_fastest, packed_moves in level:
                best = unpack(packed, use_list=False)  # a list as a tuple
                if type(best) is not tuple:
                    raise TypeError("not a list of moves")
                if len(best) < board.count(EMPTY):  # some move loses value
                    found.append(make((board, orbit, best, packed_fastest, packed_moves)))
        except (ValueError, TypeError, msgpack.UnpackException):
            raise _damaged(board) from None
        yield int(depth), found


def best_moves_by_board(reader: Reader, *, shortest: bool) -> dict[str, tuple[int, ...]]:
    """The best (`shortest`: fastest) moves of every canonical board in play, a row each: what
    `ttt_db.store.core.CoreReader.best_moves_by_board` derives from the core."""
    column = "best_moves_shortest" if shortest else "best_moves"
    rows = reader.tuples(f"SELECT board, {column} FROM {POSITIONS} WHERE to_move IS NOT NULL")
    table: dict[str, tuple[int, ...]] = {}
    unpack = msgpack.unpackb
    board = ""
    try:
        for board, packed in rows:
            moves = unpack(packed, use_list=False)  # a list as a tuple
            if type(moves) is not tuple:
                raise TypeError("not a list of moves")
            table[board] = moves
    except (ValueError, TypeError, msgpack.UnpackException):
        raise _damaged(board) from None
    return table


def _unpacked(blob: Any, board: str) -> Any:
    try:
        return msgpack.unpackb(bytes(blob))
    except (ValueError, TypeError, msgpack.UnpackException):
        raise _damaged(board) from None


def _damaged(board: str) -> DatabaseDamagedError:
    return DatabaseDamagedError(f"a row that does not decode ({board!r})", f"table {POSITIONS}")
