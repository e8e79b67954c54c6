"""Write a `Solution` into a database: SQLite files atomically, other URLs in one transaction."""

from __future__ import annotations

import glob
import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy import Connection, delete, insert, inspect, select
from sqlalchemy.exc import SQLAlchemyError

from builder.levels import CoreBuild, CoreLevel, process_alive
from builder.solver import DRAW, PLAYING, Keys, Progress, Solution, level_moves, node_lists
from ttt_db import __version__
from ttt_db.errors import DatabaseError
from ttt_db.game.definition import Game
from ttt_db.game.rules import STATUSES, VALUES, mover_at, value_for_mover
from ttt_db.store.checksum import (
    DEPTH_FIELDS,
    MARK_CODES,
    META_CHECK_KEY,
    MOVES_FIELDS,
    ROW_FIELDS,
    blob_checksum,
    checksum,
    checksums,
    depth_numbers,
    folded_columns,
    meta_checksum,
    seed,
)
from ttt_db.store.codes import CHUNK_SLOTS, value_of_code
from ttt_db.store.database import make_engine
from ttt_db.store.digest import ContentDigest
from ttt_db.store.encoding import REMOTENESS_BITS, encode_keys
from ttt_db.store.location import DatabaseLocation
from ttt_db.store.schema import SCHEMA_VERSION, Base, CoreChunkRow, DepthCount, MetaEntry, NodeList, PositionRow
from ttt_db.store.tables import CORE_COLUMNS, LEGACY_OWNER_KEYS, OWNER_KEY, OWNER_VALUE, POSITION_COLUMNS

_VALUE_NAMES = np.array(VALUES, dtype=object)  # by signed value + 1
_STATUS_NAMES = np.array(STATUSES, dtype=object)
_CHUNK_ROWS = 50_000  # rows per executemany


def rules_of(game: Game) -> dict[str, Any]:
    return {"game": game.name, "rows": game.rows, "columns": game.columns, "in_a_row": game.k, "first": "o"}


def level_columns(solution: Solution, depth: int) -> list[list[Any]]:
    """The position columns of one level in table column order (`ttt_db.store.tables.POSITION_COLUMNS`),
    each derived for the whole level at once, rows in key order."""
    game = solution.game
    level = solution.levels[depth]
    following = solution.levels[depth + 1] if depth + 1 < len(solution.levels) else None
    moves = level_moves(level, following)
    count, cells = len(level.keys), game.cells
    playing = level.status == PLAYING
    mover = mover_at(depth)
    mover_sign = 1 if mover == "o" else -1
    signed = np.where(playing, mover_sign * level.score, np.where(level.status == DRAW, 0, -1))
    best = np.zeros(count, np.int64)
    best_shortest = np.zeros(count, np.int64)
    values = np.zeros((count, cells), np.uint8)
    if len(moves.playing):
        bits = np.left_shift(1, level.edge_move)
        best[moves.playing] = np.bitwise_or.reduceat(np.where(moves.best, bits, 0), moves.starts)
        best_shortest[moves.playing] = np.bitwise_or.reduceat(np.where(moves.best_shortest, bits, 0), moves.starts)
        # (rank + 1) << 5 | remoteness, the rank 0 loss, 1 draw, 2 win (ttt_db.store.encoding)
        values[level.edge_parent, level.edge_move] = (moves.value_codes + 2) << REMOTENESS_BITS | moves.child_remoteness
    packed_values = values.tobytes()
    by_name = {  # the row's integers as ttt_db.store.checksum folds them (status: its codes already)
        "key": level.keys,
        "depth": np.full(count, depth),
        "status": level.status,
        "to_move": np.where(playing, MARK_CODES[mover], MARK_CODES[None]),
        "score": level.score,
        "value": signed + 1,  # VALUE_CODES
        "remoteness": level.remoteness,
        "sv_score": level.sv_score,
        "best_moves": best,
        "best_moves_shortest": best_shortest,
        "move_values": values,
        "o_wins": level.playout[:, 0],
        "x_wins": level.playout[:, 1],
        "draws": level.playout[:, 2],
        "paths": level.paths,
        "orbit": level.orbit,
    }
    moves_check = checksums(seed(game.name, "moves"), folded_columns(by_name, MOVES_FIELDS))
    row_check = checksums(seed(game.name, "row"), folded_columns(by_name, ROW_FIELDS))
    return [
        level.keys.tolist(),
        [depth] * count,
        _STATUS_NAMES[level.status].tolist(),
        [mover if on else None for on in playing.tolist()],
        level.score.tolist(),
        _VALUE_NAMES[signed + 1].tolist(),
        level.remoteness.tolist(),
        level.sv_score.tolist(),
        best.tolist(),
        best_shortest.tolist(),
        [packed_values[i : i + cells] for i in range(0, count * cells, cells)],
        level.playout[:, 0].tolist(),
        level.playout[:, 1].tolist(),
        level.playout[:, 2].tolist(),
        level.paths.tolist(),
        level.orbit.tolist(),
        moves_check.tolist(),
        row_check.tolist(),
    ]


def levels_of_columns(solution: Solution) -> Iterator[tuple[int, list[list[Any]]]]:
    for depth in range(len(solution.levels)):
        yield depth, level_columns(solution, depth)


@dataclass
class PreparedSolution:
    """What the writer stores beside the rows, derived once."""

    solution: Solution
    node_lists: dict[str, Keys]
    figures: dict[str, Any]

    @property
    def depth_columns(self) -> list[list[int]]:
        s = self.solution
        return [s.tree_nodes_by_depth, s.positions_by_depth, s.canonical_by_depth]

    @cached_property
    def encoded_lists(self) -> dict[str, tuple[int, bytes]]:
        """Each node list as stored: (size, encoded keys)."""
        return {name: (len(keys), encode_keys(keys)) for name, keys in self.node_lists.items()}


def prepare(solution: Solution) -> PreparedSolution:
    lists = node_lists(solution)
    return PreparedSolution(solution, lists, build_figures(solution, lists))


@dataclass
class BuildContent:
    """Everything a build writes: the ranked core of every game, and the rows, node lists and
    random-play odds of a game of at most `ttt_db.game.definition.ROWS_MAX_CELLS` cells (`rich`)."""

    game: Game
    core: CoreBuild
    rich: PreparedSolution | None
    started: float | None = None

    @cached_property
    def figures(self) -> dict[str, Any]:
        figures = core_figures(self.game, self.core.levels)
        if self.rich is None:
            return figures
        rich = self.rich.figures
        for key in figures:
            if rich[key] != figures[key]:  # two solves of one game: a bug, never a user's error
                raise AssertionError(f"the core and the rows disagree on {key}: {figures[key]} and {rich[key]}")
        return rich

    @property
    def depth_columns(self) -> tuple[list[int | None], list[int], list[int]]:
        """Tree nodes (not counted without rows), positions and classes, by depth."""
        if self.rich is not None:
            tree_nodes, positions, canonical = self.rich.depth_columns
            return list(tree_nodes), positions, canonical
        levels = self.core.levels
        return [None] * len(levels), [level.positions for level in levels], [level.canonical for level in levels]

    @property
    def encoded_lists(self) -> dict[str, tuple[int, bytes]]:
        return self.rich.encoded_lists if self.rich is not None else {}


def core_figures(game: Game, levels: list[CoreLevel]) -> dict[str, Any]:
    """The figures the core alone gives: positions and classes, their values, the empty board's."""
    import zstandard

    empty = value_of_code(zstandard.ZstdDecompressor().decompress(levels[0].chunks[0].blob)[0])
    if empty is None:
        raise AssertionError("the empty board has no code")
    return {
        "game": game.name,
        "positions": sum(level.positions for level in levels),
        "canonical_positions": sum(level.canonical for level in levels),
        "values": {value: sum(level.values[value] for level in levels) for value in ("win", "loss", "draw")},
        "values_canonical": {
            value: sum(level.values_canonical[value] for level in levels) for value in ("win", "loss", "draw")
        },
        "empty_board": {"value": empty[0], "remoteness": empty[1]},
        **{name: sum(level.counts[name] for level in levels) for name in levels[0].counts},
    }


def build_figures(solution: Solution, lists: dict[str, Keys]) -> dict[str, Any]:
    """The figures of the build, as stored in the meta table and checked by `verify`."""
    values = {"win": 0, "loss": 0, "draw": 0}
    values_canonical = {"win": 0, "loss": 0, "draw": 0}
    for level in solution.levels:
        mover_sign = 1 if level.depth % 2 == 0 else -1
        playing = level.status == PLAYING
        signed = np.where(playing, mover_sign * level.score, np.where(level.status == DRAW, 0, -1))
        for code, name in enumerate(_VALUE_NAMES.tolist(), start=-1):
            chosen = signed == code
            values[name] += int(level.orbit[chosen].sum())
            values_canonical[name] += int(chosen.sum())
    empty = solution.levels[0]
    return {
        "game": solution.game.name,
        "tree_nodes": sum(solution.tree_nodes_by_depth),
        "positions": len(lists["all"]),
        "canonical_positions": len(lists["canonical"]),
        "playing": len(lists["playing"]),
        "playing_canonical": len(lists["playing_canonical"]),
        "decision": len(lists["decision"]),
        "decision_canonical": len(lists["decision_canonical"]),
        "values": values,
        "values_canonical": values_canonical,
        "empty_board": {
            "value": value_for_mover(int(empty.score[0]), "o") if empty.status[0] == PLAYING else "draw",
            "remoteness": int(empty.remoteness[0]),
        },
    }


def _meta_rows(prepared: BuildContent, built_at: str, digest: str) -> list[dict[str, str]]:
    meta = {
        OWNER_KEY: OWNER_VALUE,
        "schema_version": SCHEMA_VERSION,
        "rules": rules_of(prepared.game),
        "package_version": __version__,
        "built_at": built_at,
        "figures": prepared.figures,
        "format": {"core_chunk_slots": CHUNK_SLOTS, "core_codec": "zstd", "rows": prepared.rich is not None},
        "content_sha256": digest,
    }
    if prepared.started is not None:  # the whole build but the final commit: solve, prepare, write
        meta["build_seconds"] = round(time.perf_counter() - prepared.started, 2)
    entries = {key: json.dumps(value, sort_keys=True) for key, value in meta.items()}
    entries[META_CHECK_KEY] = json.dumps(meta_checksum(entries))
    return [{"key": key, "value": value} for key, value in entries.items()]


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


def _write_tables(conn: Connection, prepared: BuildContent, built_at: str, progress: Progress) -> None:
    """Replace the project's tables in the caller's transaction. Tables of this schema version
    are emptied and refilled rather than dropped, so on a server a reader sees the old content
    or the new, never half of it, and is never left waiting on a table that is gone."""
    version = _existing_schema_version(conn)
    if version == SCHEMA_VERSION:
        for table in reversed(Base.metadata.sorted_tables):
            conn.execute(delete(table))
    else:
        Base.metadata.drop_all(conn)
        Base.metadata.create_all(conn)
    digest = ContentDigest()
    _write_core(conn, prepared.core, digest, progress)
    if prepared.rich is not None:
        _write_rows(conn, prepared.rich.solution, digest, progress)
    game = prepared.game.name
    if prepared.encoded_lists:
        conn.execute(
            insert(NodeList),
            [
                {"name": name, "size": size, "boards": blob, "checksum": blob_checksum(game, "list", name, size, blob)}
                for name, (size, blob) in prepared.encoded_lists.items()
            ],
        )
    depth_seed = seed(game, "depth")
    conn.execute(
        insert(DepthCount),
        [
            dict(zip(DEPTH_FIELDS, counts, strict=True)) | {"checksum": checksum(depth_seed, depth_numbers(counts))}
            for counts in ((depth, *row) for depth, row in enumerate(zip(*prepared.depth_columns, strict=True)))
        ],
    )
    conn.execute(
        insert(MetaEntry), _meta_rows(prepared, built_at, digest.finish(prepared.encoded_lists, prepared.depth_columns))
    )


def _write_core(conn: Connection, core: CoreBuild, digest: ContentDigest, progress: Progress) -> None:
    total = sum(len(level.chunks) for level in core.levels)
    written = 0
    statement = _insert_statement(conn, CoreChunkRow.__tablename__, CORE_COLUMNS)
    for level in core.levels:
        rows = [(level.depth, c.chunk, c.slots, c.blob, c.checksum) for c in level.chunks]
        digest.add_core(level.depth, rows)
        for start in range(0, len(rows), 1_000):
            conn.exec_driver_sql(statement, rows[start : start + 1_000])
        written += len(rows)
        progress("write levels", written, total)


def _write_rows(conn: Connection, solution: Solution, digest: ContentDigest, progress: Progress) -> None:
    total = sum(solution.canonical_by_depth)
    written = 0
    statement = _insert_statement(conn, PositionRow.__tablename__, POSITION_COLUMNS)
    for depth, columns in levels_of_columns(solution):
        digest.add_level(depth, columns)
        rows = list(zip(*columns, strict=True))
        for start in range(0, len(rows), _CHUNK_ROWS):
            chunk = rows[start : start + _CHUNK_ROWS]
            conn.exec_driver_sql(statement, chunk)
            written += len(chunk)
            progress("write rows", written, total)
    progress("write rows", total, total)


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


def write_url(location: DatabaseLocation, prepared: BuildContent, built_at: str, progress: Progress) -> None:
    engine = make_engine(location)
    try:
        with engine.begin() as conn:
            _write_tables(conn, prepared, built_at, progress)
    finally:
        engine.dispose()


def _writable_folder(path: Path) -> None:
    """Create the database's folder if needed; DatabaseError naming the file if it cannot be written."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise DatabaseError(f"cannot write {path}: cannot create its folder ({error.strerror})") from None
    if not os.access(path.parent, os.W_OK):
        raise DatabaseError(f"cannot write {path}: permission denied (the folder is read-only)")


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


def write_file(path: Path, prepared: BuildContent, built_at: str, progress: Progress) -> None:
    """Write beside `path`, then move into place: an interrupted build leaves nothing behind,
    and a killed one leaves files that the next build removes."""
    _writable_folder(path)
    remove_stale_temporaries(path)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        temporary.unlink(missing_ok=True)
        write_url(DatabaseLocation(f"sqlite:///{temporary}", temporary), prepared, built_at, progress)
        os.replace(temporary, path)
    except PermissionError as error:
        raise DatabaseError(f"cannot write {path}: permission denied ({error.filename})") from None
    finally:
        temporary.unlink(missing_ok=True)


def write_solution(location: DatabaseLocation, prepared: BuildContent, built_at: str, progress: Progress) -> None:
    if location.path is not None:
        write_file(location.path, prepared, built_at, progress)
    else:
        write_url(location, prepared, built_at, progress)
