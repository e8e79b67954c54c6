"""Write a solved game into a database: SQLite files atomically, other URLs in one transaction."""

from __future__ import annotations

import glob
import json
import os
import sqlite3
import time
from collections.abc import Iterable, Sequence
from contextlib import closing
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Final

from sqlalchemy import Connection, delete, insert, inspect, select, text
from sqlalchemy.exc import SQLAlchemyError

from ttt_db.build.levels import CoreBuild, Progress, process_alive
from ttt_db.errors import DatabaseError
from ttt_db.game.definition import Game
from ttt_db.store.checksum import DEPTH_FIELDS, META_CHECK_KEY, checksum, depth_numbers, meta_checksum, seed
from ttt_db.store.chunks import CHUNK_SLOTS
from ttt_db.store.database import make_engine
from ttt_db.store.digest import DIGEST_KEY, HASHES_KEY, ChunkHashes, content_digest, extras_checksum
from ttt_db.store.extras import ExtrasLevel
from ttt_db.store.figures import core_figures, reached_depths
from ttt_db.store.location import DatabaseLocation
from ttt_db.store.plain import PlainLevels, TableHash
from ttt_db.store.schema import (
    SCHEMA_VERSION,
    Base,
    ChunkHashPage,
    CoreChunkRow,
    DepthCount,
    ExtrasChunkRow,
    MetaEntry,
    NodeListRow,
    PositionRow,
)
from ttt_db.store.tables import (
    CORE_COLUMNS,
    EXTRAS_COLUMNS,
    HASH_COLUMNS,
    LEGACY_OWNER_KEYS,
    LEGACY_TABLES,
    NODE_LIST_COLUMNS,
    OWNER_KEY,
    OWNER_VALUE,
    PLAIN_KEY,
    POSITION_COLUMNS,
)
from ttt_db.version import __version__


def rules_of(game: Game) -> dict[str, Any]:
    return {"game": game.name, "rows": game.rows, "columns": game.columns, "in_a_row": game.k, "first": "o"}


@dataclass
class BuildContent:
    """Everything a build writes: the ranked core of every game, the extras (random-play odds
    and paths) of a game that keeps them (`ttt_db.store.extras.keeps_extras`), and the plain
    tables where they are written (`ttt_db.store.plain`)."""

    game: Game
    core: CoreBuild
    extras: list[ExtrasLevel] | None
    started: float | None = None
    plain: PlainLevels | None = None

    @cached_property
    def figures(self) -> dict[str, Any]:
        figures = core_figures(self.game, [level.counts for level in self.core.levels], self.core.empty_code)
        if self.extras is not None:
            tree_nodes = sum(level.tree_nodes for level in self.extras)
            figures = {"game": figures.pop("game"), "tree_nodes": tree_nodes} | figures
        return figures

    @property
    def depth_columns(self) -> tuple[list[int | None], list[int], list[int]]:
        """Tree nodes (counted where the extras are kept), positions and classes, by depth, to the
        deepest level a game reaches."""
        levels = self.core.levels[: reached_depths([level.positions for level in self.core.levels])]
        tree_nodes: list[int | None] = (
            [level.tree_nodes for level in self.extras[: len(levels)]]
            if self.extras is not None
            else [None] * len(levels)
        )
        return tree_nodes, [level.positions for level in levels], [level.canonical for level in levels]


def _meta_rows(
    prepared: BuildContent,
    built_at: str,
    hashes: ChunkHashes,
    depth_rows: list[list[int | None]],
    plain: dict[str, Any] | None,
) -> dict[str, str]:
    meta = {
        OWNER_KEY: OWNER_VALUE,
        "schema_version": SCHEMA_VERSION,
        "rules": rules_of(prepared.game),
        "package_version": __version__,
        "built_at": built_at,
        "figures": prepared.figures,
        "format": {
            "core_chunk_slots": CHUNK_SLOTS,
            "codec": "zstd",
            "extras": prepared.extras is not None,
            "tables": plain is not None,
        },
        HASHES_KEY: hashes.meta_entry(),
    }
    if plain is not None:
        meta[PLAIN_KEY] = plain
    if prepared.started is not None:  # the whole build but the final commit: solve, prepare, write
        meta["build_seconds"] = round(time.perf_counter() - prepared.started, 2)
    entries = {key: json.dumps(value, sort_keys=True) for key, value in meta.items()}
    entries[DIGEST_KEY] = json.dumps(content_digest(entries, depth_rows))
    entries[META_CHECK_KEY] = json.dumps(meta_checksum(entries))
    return entries


def _existing_schema_version(conn: Connection) -> int | None:
    """The schema version of the ttt-db tables already there, or None when there are none.
    DatabaseError when a table of one of our names is there but ttt-db cannot prove it made it
    (the owner entry in `ttt_meta`; the four entries every older build wrote): such tables are
    never dropped, emptied or overwritten, with or without --force."""
    existing = set(inspect(conn).get_table_names())
    ours = [table.name for table in Base.metadata.sorted_tables if table.name in existing]
    if not ours:
        return None
    meta: dict[str, str] = {}
    if MetaEntry.__tablename__ in existing:
        try:
            meta = {row.key: row.value for row in conn.execute(select(MetaEntry.key, MetaEntry.value))}
        except SQLAlchemyError:
            meta = {}
    proven = meta.get(OWNER_KEY) == json.dumps(OWNER_VALUE) or all(key in meta for key in LEGACY_OWNER_KEYS)
    if not proven:
        raise DatabaseError(
            f"table {', '.join(ours)} already {'exist' if len(ours) > 1 else 'exists'} and ttt-db cannot prove "
            f"it made {'them' if len(ours) > 1 else 'it'} (no owner entry in {MetaEntry.__tablename__}); "
            "ttt-db never drops, empties or overwrites such tables, with or without --force: give another "
            "database, or on PostgreSQL another schema (an URL ending in ?options=-csearch_path%3Dttt_db, "
            "the schema made first)"
        )
    try:
        version = json.loads(meta["schema_version"])
    except (KeyError, ValueError):
        return -1
    return version if isinstance(version, int) else -1


def check_ownership(location: DatabaseLocation) -> None:
    """DatabaseError when the location's `ttt_*` tables are there but not provably ttt-db's."""
    engine = make_engine(location)
    try:
        with engine.connect() as conn:
            _existing_schema_version(conn)
    finally:
        engine.dispose()


def _write_tables(conn: Connection, prepared: BuildContent, built_at: str, progress: Progress) -> str:
    """Replace the project's tables in the caller's transaction; the content digest. Tables of this schema version
    are emptied and refilled rather than dropped, so on a server a reader sees the old content
    or the new, never half of it, and is never left waiting on a table that is gone."""
    version = _existing_schema_version(conn)
    if version == SCHEMA_VERSION:
        Base.metadata.create_all(conn)  # the tables an earlier build of this version had not (checked first)
        for table in reversed(Base.metadata.sorted_tables):
            conn.execute(delete(table))
    else:
        existing = set(inspect(conn).get_table_names())
        for name in LEGACY_TABLES if version is not None else ():  # an older schema's, proven ours by its meta
            if name in existing:
                conn.execute(text(f"DROP TABLE {name}"))
        Base.metadata.drop_all(conn)
        Base.metadata.create_all(conn)
    hashes = ChunkHashes(prepared.game.name)
    _write_core(conn, prepared.core, hashes, progress)
    if prepared.extras is not None:
        _write_extras(conn, prepared.game, prepared.extras, hashes)
    conn.exec_driver_sql(_insert_statement(conn, ChunkHashPage.__tablename__, HASH_COLUMNS), list(hashes.pages()))
    plain = _write_plain(conn, prepared.plain, progress) if prepared.plain is not None else None
    depth_rows = [[depth, *row] for depth, row in enumerate(zip(*prepared.depth_columns, strict=True))]
    depth_seed = seed(prepared.game.name, "depth")
    conn.execute(
        insert(DepthCount),
        [
            dict(zip(DEPTH_FIELDS, counts, strict=True)) | {"checksum": checksum(depth_seed, depth_numbers(counts))}
            for counts in depth_rows
        ],
    )
    entries = _meta_rows(prepared, built_at, hashes, depth_rows, plain)
    conn.execute(insert(MetaEntry), [{"key": key, "value": value} for key, value in entries.items()])
    digest: str = json.loads(entries[DIGEST_KEY])
    return digest


def _write_core(conn: Connection, core: CoreBuild, hashes: ChunkHashes, progress: Progress) -> None:
    total = sum(level.chunk_count for level in core.levels)
    written = 0
    statement = _insert_statement(conn, CoreChunkRow.__tablename__, CORE_COLUMNS)
    for level in core.levels:
        rows = ((level.depth, c.chunk, c.slots, c.blob, c.checksum) for c in level.chunks(core.tables.game))
        _insert(conn, statement, hashes.hashed("core", level.depth, rows))
        written += level.chunk_count
        progress("write levels", written, total)


def _write_plain(conn: Connection, plain: PlainLevels, progress: Progress) -> dict[str, Any]:
    """The plain tables, a level at a time; their meta entry (each table's rows and hash)."""
    positions, lists = TableHash(PositionRow.__tablename__), TableHash(NodeListRow.__tablename__)
    position_statement = _insert_statement(conn, PositionRow.__tablename__, POSITION_COLUMNS)
    list_statement = _insert_statement(conn, NodeListRow.__tablename__, NODE_LIST_COLUMNS)
    total = len(plain.levels)
    for depth, (position_rows, list_rows) in enumerate(plain.rows()):
        _insert(conn, position_statement, positions.hashed(position_rows))
        _insert(conn, list_statement, lists.hashed(list_rows))
        progress("write tables", depth + 1, total)
    return {positions.table: positions.entry(), lists.table: lists.entry()}


def _insert(conn: Connection, statement: str, rows: Iterable[Sequence[Any]]) -> None:
    """`rows` inserted a thousand at a time."""
    batch: list[Sequence[Any]] = []
    for row in rows:
        batch.append(row)
        if len(batch) == 1_000:
            conn.exec_driver_sql(statement, batch)
            batch = []
    if batch:
        conn.exec_driver_sql(statement, batch)


def _write_extras(conn: Connection, game: Game, extras: list[ExtrasLevel], hashes: ChunkHashes) -> None:
    """Each extras chunk with its checksum bound to its core chunk's hash (core hashed first)."""
    statement = _insert_statement(conn, ExtrasChunkRow.__tablename__, EXTRAS_COLUMNS)
    for level in extras:
        rows = (
            (
                level.depth,
                c.chunk,
                c.classes,
                c.blob,
                extras_checksum(game.name, level.depth, c.chunk, c.blob, hashes.of("core", level.depth, c.chunk)),
            )
            for c in level.chunks
        )
        _insert(conn, statement, hashes.hashed("extras", level.depth, rows))


def _insert_statement(conn: Connection, table: str, columns: tuple[str, ...]) -> str:
    """An INSERT in the driver's own parameter style, for `executemany` over plain tuples (the
    ORM's per-row dictionaries cost more than the rest of a 4x4 build)."""
    style = conn.dialect.paramstyle
    if style == "qmark":
        marks = ["?"] * len(columns)
    elif style in ("format", "pyformat"):
        marks = ["%s"] * len(columns)
    elif style == "numeric":
        marks = [f":{i}" for i in range(1, len(columns) + 1)]
    else:
        raise DatabaseError(f"the database driver's parameter style {style!r} is not supported")
    return f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join(marks)})"


def write_url(location: DatabaseLocation, prepared: BuildContent, built_at: str, progress: Progress) -> str:
    """Write in one transaction; the content digest."""
    engine = make_engine(location)
    try:
        with engine.begin() as conn:
            return _write_tables(conn, prepared, built_at, progress)
    finally:
        engine.dispose()


def writable_folder(path: Path) -> None:
    """Create the database's folder if needed; DatabaseError naming the file if it cannot be
    written (a file is tried there: a folder like /proc takes none, whatever its mode says)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise DatabaseError(f"cannot write {path}: cannot create its folder ({error.strerror})") from None
    if not os.access(path.parent, os.W_OK):
        raise DatabaseError(f"cannot write {path}: permission denied (the folder is read-only)")
    probe = path.with_name(f".{path.name}.{os.getpid()}.probe")
    try:
        probe.touch()
    except OSError as error:
        raise DatabaseError(f"cannot write {path}: {(error.strerror or str(error)).lower()}") from None
    probe.unlink(missing_ok=True)


def remove_stale_temporaries(path: Path) -> list[Path]:
    """Delete what killed builds of `path` left behind (`.NAME.PID.tmp` and its SQLite journal
    files) when that PID is no longer running; a running build's files are left alone."""
    removed = []
    for leftover in path.parent.glob(f".{glob.escape(path.name)}.*.tmp*"):
        pid_text = leftover.name[len(path.name) + 2 :].split(".", 1)[0]
        if pid_text.isdigit() and int(pid_text) != os.getpid() and not process_alive(int(pid_text)):
            leftover.unlink(missing_ok=True)
            removed.append(leftover)
    return removed


PLAIN_PAGE_SIZE: Final = 1024
"""The SQLite page size of a file holding the plain tables: their rows are tens of bytes, and a
small file's last page of each table and index is mostly slack at the default 4 KB."""


def write_file(path: Path, prepared: BuildContent, built_at: str, progress: Progress) -> str:
    """Write beside `path`, then move into place: an interrupted build leaves nothing behind,
    and a killed one leaves files that the next build removes. The content digest."""
    writable_folder(path)
    remove_stale_temporaries(path)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        temporary.unlink(missing_ok=True)
        if prepared.plain is not None:
            with closing(sqlite3.connect(temporary)) as created:
                created.execute(f"PRAGMA page_size = {PLAIN_PAGE_SIZE}")
                created.execute("VACUUM")  # the empty file is made with that page size
        digest = write_url(DatabaseLocation(f"sqlite:///{temporary}", temporary), prepared, built_at, progress)
        os.replace(temporary, path)
        return digest
    except PermissionError as error:
        raise DatabaseError(f"cannot write {path}: permission denied ({error.filename})") from None
    finally:
        temporary.unlink(missing_ok=True)


def write_solution(location: DatabaseLocation, prepared: BuildContent, built_at: str, progress: Progress) -> str:
    """Write the database; its content digest."""
    if location.path is not None:
        return write_file(location.path, prepared, built_at, progress)
    return write_url(location, prepared, built_at, progress)
