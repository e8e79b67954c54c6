"""ttt-db: a precomputed, exact solution database for tic-tac-toe and the m,n,k games up to 16 cells.

Cheap to import: the database layer loads on first use of `open_database` (and SQLAlchemy only
for a database that is not a local SQLite file).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ttt_db.errors import (
    DatabaseError,
    DatabaseMissingError,
    ImpossibleBoardError,
    InvalidBoardError,
    InvalidMoveError,
    PositionNotFoundError,
    TttDbError,
    UnknownAIError,
)
from ttt_db.game.board import Board, parse_move
from ttt_db.game.definition import Game
from ttt_db.game.symmetry import canonical_board
from ttt_db.store.location import DatabaseLocation, resolve_location

if TYPE_CHECKING:
    from ttt_db.store.database import SolutionDatabase, open_database

__version__ = "0.1.0"

__all__ = [
    "Board",
    "DatabaseError",
    "DatabaseLocation",
    "DatabaseMissingError",
    "Game",
    "ImpossibleBoardError",
    "InvalidBoardError",
    "InvalidMoveError",
    "PositionNotFoundError",
    "SolutionDatabase",
    "TttDbError",
    "UnknownAIError",
    "canonical_board",
    "open_database",
    "parse_move",
    "resolve_location",
]


def __getattr__(name: str) -> Any:
    if name in ("open_database", "SolutionDatabase"):
        from ttt_db import database

        return getattr(database, name)
    raise AttributeError(f"module 'ttt_db' has no attribute {name!r}")
