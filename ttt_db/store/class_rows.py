"""The plain table `ttt_positions` read back: a decision class a row, for the small games' checks.

A game whose build wrote the plain tables (`ttt_db.store.plain`) has a row per symmetry class at
its canonical board, with its best and fastest moves and every move's value and remoteness. Where
a read is pinned those rows are held to the hashes the digest covers at open
(`SolutionDatabase.plain_rows_held`), and a check of a small game reads them here instead of
walking the core's levels through interpreted kernels. Light on purpose: sqlite3 and msgpack only.
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
    boards it has and its best moves; its fastest moves and every legal move are decoded when
    asked (most checks need neither). A named tuple: a check makes one per row it reads."""

    board: str
    orbit: int
    best: tuple[int, ...]
    packed_fastest: bytes
    packed_moves: bytes

    @property
    def fastest(self) -> tuple[int, ...]:
        return tuple(_unpacked(self.packed_fastest, self.board))

    @property
    def moves(self) -> tuple[tuple[int, int, int], ...]:
        """Every legal move as (cell, value rank in `VALUES`, plies left after it), in cell order."""
        try:
            return tuple((cell, _RANK[value], after) for cell, value, after in _unpacked(self.packed_moves, self.board))
        except (ValueError, TypeError, KeyError):
            raise _damaged(self.board) from None


def decision_levels(reader: Reader) -> Iterator[tuple[int, list[DecisionClass]]]:
    """Each depth that has decision positions, shallowest first, with its classes in key order
    (a lost position is none: every move loses)."""
    rows = list(  # read whole (a small game's): no cursor stays open while an AI answers
        reader.stream(
            f"SELECT depth, board, orbit, best_moves, best_moves_shortest, moves FROM {POSITIONS} "
            "WHERE to_move IS NOT NULL AND value != 'loss' ORDER BY key"  # the table's order: no sort in SQLite
        )
    )
    rows.sort(key=itemgetter(0))  # by depth, each depth's rows still in key order
    for depth, level in groupby(rows, key=itemgetter(0)):
        yield (
            int(depth),
            [
                DecisionClass(board, orbit, best, fastest, moves)  # held to their hashes: as typed
                for _, board, orbit, packed, fastest, moves in level
                if len(best := tuple(_unpacked(packed, board))) < board.count(EMPTY)  # some move loses value
            ],
        )


def _unpacked(blob: Any, board: str) -> Any:
    try:
        return msgpack.unpackb(bytes(blob))
    except (ValueError, TypeError, msgpack.UnpackException):
        raise _damaged(board) from None


def _damaged(board: str) -> DatabaseDamagedError:
    return DatabaseDamagedError(f"a row that does not decode ({board!r})", f"table {POSITIONS}")
