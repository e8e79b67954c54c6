"""The build pipeline: enumerate and solve the game, then write the database."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ttt_db.database import SolutionDatabase, database_exists, open_database
from ttt_db.location import DatabaseLocation, resolve_location

if TYPE_CHECKING:
    from builder.solver import Progress

logger = logging.getLogger("builder")


@dataclass(frozen=True, slots=True)
class BuildSummary:
    location: DatabaseLocation
    built: bool  # False when a database was already there and `force` was not given
    seconds: float
    figures: dict[str, Any]
    size_bytes: int | None


def _build_time() -> str:
    """UTC now, or SOURCE_DATE_EPOCH when set, so reproducible builds are byte-identical."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    moment = datetime.fromtimestamp(int(epoch), UTC) if epoch else datetime.now(UTC)
    return moment.isoformat(timespec="seconds")


def _ignore(stage: str, done: int, total: int) -> None:
    return None


def build_database(
    db: str | os.PathLike[str] | DatabaseLocation | None = None, *, force: bool = False, progress: Progress = _ignore
) -> BuildSummary:
    """Build the database at `db` (path, URL, `$TTT_DB` or the default) unless one is there."""
    # imported here so that opening an existing database does not pay for the builder
    from builder.solver import solve_game
    from builder.write import build_figures, write_solution

    location = resolve_location(db)
    started = time.perf_counter()
    if not force and database_exists(location):
        return BuildSummary(location, False, 0.0, {}, _size(location))
    solution = solve_game(progress)
    progress("write", 0, 1)
    write_solution(location, solution, _build_time())
    progress("write", 1, 1)
    return BuildSummary(
        location, True, time.perf_counter() - started, build_figures(solution), _size(location)
    )


def _size(location: DatabaseLocation) -> int | None:
    if location.path is not None and location.path.is_file():
        return location.path.stat().st_size
    return None


def open_or_build(
    db: str | os.PathLike[str] | DatabaseLocation | None = None, *, notice: Callable[[str], None] = logger.warning
) -> SolutionDatabase:
    """`ttt_db.open_database`, building the database first when there is none. The build is
    announced through `notice`: by default a warning on the `builder` logger, which reaches
    stderr unless logging is configured otherwise."""
    location = resolve_location(db)
    if not database_exists(location):
        notice(f"no database at {location}: building it now (first use)")
        build_database(location)
    return open_database(location)
