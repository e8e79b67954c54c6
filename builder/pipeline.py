"""The build pipeline: enumerate and solve the game, then write the database."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from ttt_db.errors import BuildRefusedError, DatabaseError, DatabaseMissingError
from ttt_db.game.definition import DEFAULT_GAME, Game
from ttt_db.ranked.slots import MAX_CELLS
from ttt_db.store.database import SolutionDatabase, database_exists, open_database
from ttt_db.store.figures import DepthFigures, depth_figures
from ttt_db.store.location import DatabaseLocation, resolve_location
from ttt_db.store.pins import pin_recorded

if TYPE_CHECKING:
    from ttt_db.build.levels import Progress

logger = logging.getLogger("builder")
QUERY_BUILD_CELLS: Final = 20
"""The largest game a query builds by itself when its database is missing (a larger one takes long
enough that `ttt-db build` should be asked for it, having read its --plan)."""


@dataclass(frozen=True, slots=True)
class BuildSummary:
    location: DatabaseLocation
    built: bool  # False when a database was already there and `force` was not given
    seconds: float
    figures: dict[str, Any]
    size_bytes: int | None
    depths: list[DepthFigures] = field(default_factory=list)
    resumed_at: int | None = None  # the shallowest level solved by an earlier build that was stopped
    digest: str | None = None  # the content digest (`ttt_db.store.digest`)
    pinned: Path | None = None  # where the build recorded it (`ttt_db.store.pins`), None for a URL
    not_pinned: str | None = None  # why a file was left unpinned (its record could not be written)

    def to_document(self) -> dict[str, Any]:
        """What `ttt-db build --json` prints (docs/json.md)."""
        return {
            "location": str(self.location),
            "built": self.built,
            "seconds": self.seconds if self.built else None,
            "size_bytes": self.size_bytes,
            "figures": self.figures if self.built else None,
            "depths": [depth.to_dict() for depth in self.depths],
            "resumed_at": self.resumed_at,
            "digest": self.digest,
            "pinned": None if self.pinned is None else str(self.pinned),
            "not_pinned": self.not_pinned,
        }


def _build_time() -> str:
    """UTC now, or SOURCE_DATE_EPOCH when set, so reproducible builds are byte-identical."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    moment = datetime.fromtimestamp(int(epoch), UTC) if epoch else datetime.now(UTC)
    return moment.isoformat(timespec="seconds")


def _ignore(stage: str, done: int, total: int) -> None:
    return None


def build_database(
    db: str | os.PathLike[str] | DatabaseLocation | None = None,
    *,
    game: Game = DEFAULT_GAME,
    force: bool = False,
    progress: Progress = _ignore,
    notice: Callable[[str], None] = logger.info,
    client: Any = None,
    work_dir: Path | None = None,
    tables: bool | None = None,
) -> BuildSummary:
    """Build `game`'s database at `db` (path, URL, `$TTT_DB` or the game's default) unless one
    is there, with the plain tables (`ttt_db.store.plain`) as `tables` asks (None: where the game
    is small enough, `writes_tables`). A build that was stopped part-way is resumed above its last finished level, which
    `notice` is told (`force`: any database there is replaced, and a stopped build's levels are
    discarded). With a Dask `client` every level is solved by tasks on its workers, in a work
    folder under `work_dir` (shared storage for a cluster; beside the database by default): the
    same database as a local build."""
    # imported here so that opening an existing database does not pay for the builder (SQLAlchemy)
    from ttt_db.build.write import check_ownership
    from ttt_db.store.plain import writes_tables

    writes_tables(game, tables)  # a game too large for them is refused before anything else
    location = resolve_location(db, game)
    if not force and database_exists(location):
        if location.path is None:  # a server's tables of our names: ours, or refused
            check_ownership(location)
        with open_database(location) as existing:  # another schema version is refused here
            if existing.game != game:
                raise DatabaseError(
                    f"{location} holds the {existing.game} database, not {game}'s: give --force to replace it, "
                    "or another --db"
                )
            digest = existing.content_digest()
        return BuildSummary(location, False, 0.0, {}, _size(location), digest=digest)
    refuse_what_cannot_fit(game, client, location)
    return _build(location, game, progress, notice, client, work_dir, fresh=force, tables=tables)


def _build(
    location: DatabaseLocation,
    game: Game,
    progress: Progress = _ignore,
    notice: Callable[[str], None] = logger.info,
    client: Any = None,
    work_dir: Path | None = None,
    *,
    fresh: bool = False,
    tables: bool | None = None,
) -> BuildSummary:
    """Solve `game` and write its database at `location`, over whatever is there (its callers
    have refused what cannot fit: `refuse_what_cannot_fit`); `fresh`: a stopped build's levels
    are discarded, not taken up; `tables`: as `build_database` says."""
    from ttt_db.build.levels import build_core, work_folder
    from ttt_db.build.write import BuildContent, writable_folder, write_solution
    from ttt_db.store.extras import count_extras, keeps_extras
    from ttt_db.store.plain import PlainLevels, writes_tables

    if location.path is not None:
        writable_folder(location.path)  # before any level is solved
    started = time.perf_counter()
    reproducible = "SOURCE_DATE_EPOCH" in os.environ  # byte-identical builds record no duration
    folder = work_folder(location, game, work_dir)
    core = build_core(game, folder, progress, notice, client, keep=keeps_extras(game), fresh=fresh)
    extras = count_extras(core.tables, core.held) if core.held is not None else None
    plain = None
    if core.held is not None and writes_tables(game, tables):
        plain = PlainLevels(core.tables, core.held, [level.counts for level in core.levels])
    content = BuildContent(game, core, extras, None if reproducible else started, plain)
    digest = write_solution(location, content, _build_time(), progress)
    pinned, not_pinned = pin_recorded(location, digest, "built")
    folder.remove()
    return BuildSummary(
        location,
        True,
        time.perf_counter() - started,
        content.figures,
        _size(location),
        depth_figures(*content.depth_columns),
        core.resumed_at,
        digest,
        pinned,
        not_pinned,
    )


def refuse_what_cannot_fit(game: Game, client: Any, location: DatabaseLocation) -> None:
    """BuildRefusedError, with the build's plan, for a game over MAX_CELLS, or one that this
    machine lacks memory or disk for (with a local cluster, its workers share them too)."""
    from ttt_db.build.plan import plan_build, plan_lines
    from ttt_db.store.extras import keeps_extras

    if keeps_extras(game) and game.cells <= MAX_CELLS:
        return  # a few hundred MB at most
    workers = None if client is None else max(1, len(client.scheduler_info().get("workers", {})))
    folder = location.path.parent if location.path is not None else Path(".")
    plan = plan_build(game, workers, folder, measure=False, cluster=client is not None)
    if game.cells > MAX_CELLS:
        raise BuildRefusedError(
            f"{game} has {game.cells} cells; no build takes more than {MAX_CELLS}:", plan_lines(plan)
        )
    if client is not None and not _is_local(client):
        return  # a cluster of your own: its machines are not this one
    if plan.lacks:
        raise BuildRefusedError(f"{game} does not fit this machine:", plan_lines(plan))


def _is_local(client: Any) -> bool:
    """Whether the Dask client's cluster is a LocalCluster on this machine."""
    from distributed import LocalCluster

    return isinstance(getattr(client, "cluster", None), LocalCluster)


def _size(location: DatabaseLocation) -> int | None:
    if location.path is not None and location.path.is_file():
        return location.path.stat().st_size
    return None


def open_or_build(
    db: str | os.PathLike[str] | DatabaseLocation | None = None,
    *,
    game: Game = DEFAULT_GAME,
    notice: Callable[[str], None] = logger.warning,
    digest: str | None = None,
    recorded: bool = True,
) -> SolutionDatabase:
    """`ttt_db.open_database` (pinned by `digest` and `recorded` as it says), building the
    database first when there is none. The build is announced through `notice`: by default a
    warning on the `builder` logger, which reaches stderr unless logging is configured otherwise."""
    location = resolve_location(db, game)
    try:
        return open_database(location, game=game, digest=digest, recorded=recorded)
    except DatabaseMissingError:
        if game.cells > QUERY_BUILD_CELLS:
            raise BuildRefusedError(
                f"no database for {game} at {location}, and a query builds games of up to {QUERY_BUILD_CELLS} cells "
                f"itself: build it first with `ttt-db build --game {game}` (`--plan` says what it takes)",
                [],
            ) from None
        refuse_what_cannot_fit(game, None, location)  # before saying that it builds
        what = "" if game == DEFAULT_GAME else f" for {game}"
        notice(f"no database{what} at {location}: building it now (first use)")
    _build(location, game)
    return open_database(location, game=game, digest=digest, recorded=recorded)
