"""Read access to a built solution database.

    with open_database() as db:
        db.lookup("ox..x....").best_moves      # raises on an impossible board
        db.get("xxx......")                    # None instead of raising

Positions are read by unique index one at a time and cached, so a warm handle answers from
memory; `load_all()` fills the cache in one query for work that touches every board.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from types import TracebackType
from typing import Any, TypeVar

import msgpack
from sqlalchemy import Engine, create_engine, inspect, select
from sqlalchemy.exc import SQLAlchemyError

from ttt_db.board import Board
from ttt_db.errors import (
    DatabaseError,
    DatabaseMissingError,
    ImpossibleBoardError,
    PositionNotFoundError,
)
from ttt_db.location import DatabaseLocation, resolve_location
from ttt_db.position import MoveAnalysis, Position
from ttt_db.schema import SCHEMA_VERSION, DepthCount, MetaEntry, NodeList, PositionRow

T = TypeVar("T")

_positions = PositionRow.__table__
_meta = MetaEntry.__table__
_node_lists = NodeList.__table__
_depth_counts = DepthCount.__table__


@dataclass(frozen=True, slots=True)
class DepthFigures:
    depth: int
    tree_nodes: int
    positions: int
    canonical_positions: int


def make_engine(location: DatabaseLocation) -> Engine:
    """An engine for the location; DatabaseError for an unknown dialect or a missing driver."""
    if location.path is not None and location.path.is_dir():
        raise DatabaseError(f"{location} is a directory; give the database file's path")
    try:
        return create_engine(location.url)
    except ImportError as error:
        raise DatabaseError(f"the database driver for {location.url!r} is not installed ({error})") from None
    except SQLAlchemyError as error:
        raise DatabaseError(f"cannot use {location.url!r}: {error}") from None


def database_exists(location: DatabaseLocation) -> bool:
    """True when the location holds a database with the meta table (a file must exist first)."""
    if location.path is not None and not location.path.is_dir():
        return location.path.is_file()
    engine = make_engine(location)
    try:
        return inspect(engine).has_table(MetaEntry.__tablename__)
    except SQLAlchemyError:
        return False
    finally:
        engine.dispose()


class SolutionDatabase:
    """An open solution database. Use `open_database()` to get one."""

    def __init__(self, engine: Engine, location: DatabaseLocation) -> None:
        self.engine = engine
        self.location = location
        self._cache: dict[str, Position] = {}
        self._meta: dict[str, Any] | None = None
        self._all_loaded = False
        self._best_moves_tables: dict[bool, dict[str, tuple[int, ...]]] = {}

    def __enter__(self) -> SolutionDatabase:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        self.engine.dispose()

    # --- facts of the build -------------------------------------------------------------

    def meta(self) -> dict[str, Any]:
        """Every meta entry, JSON-decoded."""
        if self._meta is None:
            with self.engine.connect() as conn:
                rows = conn.execute(select(_meta.c.key, _meta.c.value)).all()
            self._meta = {key: json.loads(value) for key, value in rows}
        return self._meta

    def depth_figures(self) -> list[DepthFigures]:
        with self.engine.connect() as conn:
            rows = conn.execute(select(_depth_counts).order_by(_depth_counts.c.depth)).all()
        return [DepthFigures(r.depth, r.tree_nodes, r.positions, r.canonical_positions) for r in rows]

    def node_list(self, name: str) -> list[str]:
        """A stored list of boards (`all`, `canonical`, `playing`, `decision`, ...)."""
        with self.engine.connect() as conn:
            packed = conn.execute(
                select(_node_lists.c.boards).where(_node_lists.c.name == name)
            ).scalar_one_or_none()
        if packed is None:
            raise KeyError(f"no node list named {name!r}")
        return list(msgpack.unpackb(packed))

    def node_list_names(self) -> list[str]:
        with self.engine.connect() as conn:
            return list(conn.execute(select(_node_lists.c.name).order_by(_node_lists.c.name)).scalars())

    # --- positions -----------------------------------------------------------------------

    def lookup(self, board: str | Board) -> Position:
        """The solved position, in the board's own marks. Raises `InvalidBoardError` (a
        `ValueError`) for malformed or impossible boards, `PositionNotFoundError` (a `KeyError`)
        when the database lacks a valid board."""
        key = board if type(board) is str else str(board)
        found = self._cache.get(key)
        if found is not None:
            return found
        return self._lookup_uncached(key, board)

    def get(self, board: str | Board, default: T | None = None) -> Position | T | None:
        """Like `lookup`, but `default` for an impossible or missing board.
        Malformed text still raises `InvalidBoardError`."""
        try:
            return self.lookup(board)
        except (ImpossibleBoardError, PositionNotFoundError):
            return default

    def best_moves(self, board: str | Board, *, shortest: bool = False) -> tuple[int, ...]:
        position = self.lookup(board)
        return position.best_moves_shortest if shortest else position.best_moves

    def analyse(self, board: str | Board) -> tuple[MoveAnalysis, ...]:
        """Every legal move with its value for the mover and the remoteness after it."""
        return self.lookup(board).moves

    def _lookup_uncached(self, key: str, board: str | Board) -> Position:
        parsed = board if isinstance(board, Board) else Board.parse(board)
        stored = self._cache.get(parsed.stored_cells)
        if stored is None:
            if self._all_loaded:
                raise PositionNotFoundError(parsed.cells)
            with self.engine.connect() as conn:
                row = conn.execute(
                    select(_positions).where(_positions.c.board == parsed.stored_cells)
                ).one_or_none()
            if row is None:
                raise PositionNotFoundError(parsed.cells)
            stored = Position.from_row(row)
            self._cache[stored.board] = stored
        position = stored.with_marks_swapped() if parsed.swapped else stored
        self._cache[key] = position
        self._cache[position.board] = position
        return position

    def load_all(self) -> list[Position]:
        """Every stored position (o first), in (depth, board) order; warms the cache."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(_positions).order_by(_positions.c.id)).all()
        positions = [Position.from_row(row) for row in rows]
        for position in positions:
            self._cache.setdefault(position.board, position)
        self._all_loaded = True
        return positions

    def best_moves_table(self, *, shortest: bool = False) -> dict[str, tuple[int, ...]]:
        """Board (o first) -> best moves, for every position still in play, read in one query
        the first time (the lookup AIs and the checks share it; do not modify it)."""
        cached = self._best_moves_tables.get(shortest)
        if cached is not None:
            return cached
        column = _positions.c.best_moves_shortest if shortest else _positions.c.best_moves
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(_positions.c.board, column).where(_positions.c.status == "playing")
            ).all()
        unpack = msgpack.unpackb
        table = self._best_moves_tables[shortest] = {board: tuple(unpack(packed)) for board, packed in rows}
        return table


def _check_schema(engine: Engine, location: DatabaseLocation) -> None:
    try:
        with engine.connect() as conn:
            version = conn.execute(
                select(_meta.c.value).where(_meta.c.key == "schema_version")
            ).scalar_one_or_none()
    except SQLAlchemyError as error:
        raise DatabaseError(f"{location} is not a ttt-db database ({error.__class__.__name__})") from None
    if version is None or json.loads(version) != SCHEMA_VERSION:
        raise DatabaseError(
            f"{location} has schema version {version}, this ttt-db reads version "
            f"{SCHEMA_VERSION}: rebuild it with `ttt-db build --force`"
        )


def open_database(db: str | os.PathLike[str] | None = None) -> SolutionDatabase:
    """Open the database at `db` (a path or SQLAlchemy URL), `$TTT_DB`, or the default path.

    Raises `DatabaseMissingError` when there is none (`builder.open_or_build` or
    `ttt-db build` makes it) and `DatabaseError` when it is not a ttt-db database of this
    schema version.
    """
    location = resolve_location(db)
    if not database_exists(location):
        raise DatabaseMissingError(f"no database at {location}; run `ttt-db build` to create it")
    engine = make_engine(location)
    _check_schema(engine, location)
    return SolutionDatabase(engine, location)
