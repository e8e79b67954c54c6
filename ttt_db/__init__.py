"""ttt-db: a precomputed, exact solution database for tic-tac-toe and the m,n,k games up to 25 cells.

The public API, importable from here: `Board`, `Game`, `open_database`, `load_ai`, `run_checks`,
`measure_policy`, `run_search`, `check_trace` and the errors (docs/architecture.md says where everything lives).
Cheap to import: the database layer, the AIs, checks and searches load on first use (and
SQLAlchemy only for a database that is not a local SQLite file).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from ttt_db.errors import (
    AIMisbehaved,
    DatabaseDamagedError,
    DatabaseError,
    DatabaseMissingError,
    ImpossibleBoardError,
    InputError,
    InvalidBoardError,
    InvalidDepthError,
    InvalidMoveError,
    PositionNotFoundError,
    TraceFormatError,
    TttDbError,
    UnknownAIError,
    UnknownAlgorithmError,
    UnknownGameError,
    WorkLimitError,
)
from ttt_db.game.board import Board, parse_move
from ttt_db.game.definition import Game
from ttt_db.game.symmetry import canonical_board
from ttt_db.store.location import DatabaseLocation, resolve_location

if TYPE_CHECKING:
    from ttt_db.ais.registry import load_ai
    from ttt_db.checks.measures import measure_policy
    from ttt_db.checks.report import run_checks
    from ttt_db.search.algorithms import run_search
    from ttt_db.search.trace_check import check_trace
    from ttt_db.store.database import SolutionDatabase, open_database

from ttt_db.version import __version__ as __version__

_LAZY = {
    "open_database": "ttt_db.store.database",
    "SolutionDatabase": "ttt_db.store.database",
    "load_ai": "ttt_db.ais.registry",
    "run_checks": "ttt_db.checks.report",
    "measure_policy": "ttt_db.checks.measures",
    "run_search": "ttt_db.search.algorithms",
    "check_trace": "ttt_db.search.trace_check",
}

__all__ = [
    "AIMisbehaved",
    "Board",
    "DatabaseDamagedError",
    "DatabaseError",
    "DatabaseLocation",
    "DatabaseMissingError",
    "Game",
    "ImpossibleBoardError",
    "InputError",
    "InvalidBoardError",
    "InvalidDepthError",
    "InvalidMoveError",
    "PositionNotFoundError",
    "SolutionDatabase",
    "TraceFormatError",
    "TttDbError",
    "UnknownAIError",
    "UnknownAlgorithmError",
    "UnknownGameError",
    "WorkLimitError",
    "canonical_board",
    "check_trace",
    "load_ai",
    "measure_policy",
    "open_database",
    "parse_move",
    "resolve_location",
    "run_checks",
    "run_search",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ttt_db' has no attribute {name!r}")
    return getattr(import_module(module), name)
