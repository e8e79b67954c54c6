"""Write a `Solution` into a database: SQLite files atomically, other URLs in one transaction."""

from __future__ import annotations

import glob
import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from math import factorial
from pathlib import Path
from typing import Any

import msgpack
import numpy as np
from sqlalchemy import Connection, delete, insert, inspect, select

from builder.solver import DRAW, PLAYING, STATUS_NAMES, Progress, Solution, level_moves, node_lists
from ttt_db import __version__
from ttt_db.errors import DatabaseError
from ttt_db.game.definition import Game
from ttt_db.game.rules import mover_at, value_for_mover
from ttt_db.store.database import make_engine
from ttt_db.store.digest import ContentDigest, content_digest
from ttt_db.store.location import DatabaseLocation
from ttt_db.store.schema import SCHEMA_VERSION, Base, DepthCount, MetaEntry, NodeList, PositionRow
from ttt_db.store.tables import POSITION_COLUMNS

_VALUE_NAMES = {1: "win", 0: "draw", -1: "loss"}
_CHUNK_ROWS = 20_000  # rows per INSERT batch: memory stays flat on 4x4


def rules_of(game: Game) -> dict[str, Any]:
    return {"game": game.name, "rows": game.rows, "columns": game.columns, "in_a_row": game.k, "first": "o"}


def level_rows(solution: Solution, depth: int) -> Iterator[tuple[Any, ...]]:
    """The rows of one level in table column order (see `ttt_db.store.schema.PositionRow`)."""
    game = solution.game
    level = solution.levels[depth]
    following = solution.levels[depth + 1] if depth + 1 < len(solution.levels) else None
    moves = level_moves(level, following)
    pack = msgpack.packb
    ways = factorial(game.cells - depth)
    mover = mover_at(depth)
    edge_move = level.edge_move.tolist()
    value_names = [_VALUE_NAMES[code] for code in moves.value_codes.tolist()]
    child_remoteness = moves.child_remoteness.tolist()
    best = moves.best.tolist()
    best_shortest = moves.best_shortest.tolist()
    starts = moves.starts.tolist()
    ends = [*starts[1:], len(edge_move)] if starts else []
    edge_ranges = dict(zip(moves.playing.tolist(), zip(starts, ends, strict=True), strict=True))
    empty_list = pack([])
    for index, (key, status_code, score, sv_score, remoteness, playout, paths, orbit) in enumerate(
        zip(
            level.keys.tolist(),
            level.status.tolist(),
            level.score.tolist(),
            level.sv_score.tolist(),
            level.remoteness.tolist(),
            level.playout.tolist(),
            level.paths.tolist(),
            level.orbit.tolist(),
            strict=True,
        )
    ):
        status = STATUS_NAMES[status_code]
        span = edge_ranges.get(index)
        if span is None:
            value = "draw" if status == "draw" else "loss"
            packed_best = packed_shortest = packed_values = empty_list
            to_move = None
        else:
            first, last = span
            value = value_for_mover(score, mover)
            packed_best = pack([edge_move[e] for e in range(first, last) if best[e]])
            packed_shortest = pack([edge_move[e] for e in range(first, last) if best_shortest[e]])
            packed_values = pack([[edge_move[e], value_names[e], child_remoteness[e]] for e in range(first, last)])
            to_move = mover
        yield (
            key,
            game.board_of(key),
            depth,
            status,
            to_move,
            score,
            value,
            remoteness,
            sv_score,
            packed_best,
            packed_shortest,
            packed_values,
            pack([*playout, ways]),
            paths,
            orbit,
        )


def position_rows(solution: Solution) -> Iterator[tuple[Any, ...]]:
    for depth in range(len(solution.levels)):
        yield from level_rows(solution, depth)


@dataclass
class PreparedSolution:
    """What the writer stores beside the rows, derived once."""

    solution: Solution
    node_lists: dict[str, list[int]]
    figures: dict[str, Any]
    started: float | None = None  # time.perf_counter() when the build began, for its duration

    @property
    def depth_columns(self) -> list[list[int]]:
        s = self.solution
        return [s.tree_nodes_by_depth, s.positions_by_depth, s.canonical_by_depth]


def prepare(solution: Solution, started: float | None = None) -> PreparedSolution:
    lists = node_lists(solution)
    return PreparedSolution(solution, lists, build_figures(solution, lists), started)


def solution_digest(prepared: PreparedSolution) -> str:
    """SHA-256 of everything the build derives (`ttt_db.store.digest`), as `verify` recomputes it."""
    return content_digest(position_rows(prepared.solution), prepared.node_lists, prepared.depth_columns)


def build_figures(solution: Solution, lists: dict[str, list[int]]) -> dict[str, Any]:
    """The figures of the build, as stored in the meta table and checked by `verify`."""
    values = {"win": 0, "loss": 0, "draw": 0}
    values_canonical = {"win": 0, "loss": 0, "draw": 0}
    for level in solution.levels:
        mover_sign = 1 if level.depth % 2 == 0 else -1
        playing = level.status == PLAYING
        signed = np.where(playing, mover_sign * level.score, np.where(level.status == DRAW, 0, -1))
        for code, name in _VALUE_NAMES.items():
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


def _meta_rows(prepared: PreparedSolution, built_at: str, digest: str) -> list[dict[str, str]]:
    meta = {
        "schema_version": SCHEMA_VERSION,
        "rules": rules_of(prepared.solution.game),
        "package_version": __version__,
        "built_at": built_at,
        "figures": prepared.figures,
        "content_sha256": digest,
    }
    if prepared.started is not None:  # the whole build but the final commit: solve, prepare, rows
        meta["build_seconds"] = round(time.perf_counter() - prepared.started, 2)
    return [{"key": key, "value": json.dumps(value, sort_keys=True)} for key, value in meta.items()]


def _existing_schema_version(conn: Connection) -> int | None:
    """The schema version of the ttt-db tables already there, or None when there are none.
    DatabaseError when one of our table names is taken by a table this project did not make
    (no `schema_version` marker in `ttt_meta`): such a table is never dropped or overwritten."""
    existing = set(inspect(conn).get_table_names())
    ours = [table.name for table in Base.metadata.sorted_tables if table.name in existing]
    if not ours:
        return None
    marker = None
    if MetaEntry.__tablename__ in existing:
        marker = conn.execute(select(MetaEntry.value).where(MetaEntry.key == "schema_version")).scalar_one_or_none()
    if marker is None:
        raise DatabaseError(
            f"table {ours[0]} already exists and was not made by ttt-db (no schema_version in "
            f"{MetaEntry.__tablename__}); not replacing it: use another database or schema"
        )
    version = json.loads(marker)
    return version if isinstance(version, int) else -1


def _write_tables(conn: Connection, prepared: PreparedSolution, built_at: str, progress: Progress) -> None:
    """Replace the project's tables in the caller's transaction. Tables of this schema version
    are emptied and refilled rather than dropped, so on a server a reader sees the old content
    or the new, never half of it, and is never left waiting on a table that is gone."""
    solution = prepared.solution
    version = _existing_schema_version(conn)
    if version == SCHEMA_VERSION:
        for table in reversed(Base.metadata.sorted_tables):
            conn.execute(delete(table))
    else:
        Base.metadata.drop_all(conn)
        Base.metadata.create_all(conn)
    total = sum(solution.canonical_by_depth)
    written = 0
    batch: list[dict[str, Any]] = []
    digest = ContentDigest()
    for row in position_rows(solution):
        digest.add_row(row)
        batch.append(dict(zip(POSITION_COLUMNS, row, strict=True)))
        if len(batch) == _CHUNK_ROWS:
            conn.execute(insert(PositionRow), batch)
            written += len(batch)
            batch = []
            progress("write", written, total)
    if batch:
        conn.execute(insert(PositionRow), batch)
    progress("write", total, total)
    conn.execute(
        insert(NodeList),
        [
            {"name": name, "size": len(keys), "boards": msgpack.packb(keys)}
            for name, keys in prepared.node_lists.items()
        ],
    )
    conn.execute(
        insert(DepthCount),
        [
            {"depth": depth, "tree_nodes": nodes, "positions": count, "canonical_positions": canon}
            for depth, (nodes, count, canon) in enumerate(zip(*prepared.depth_columns, strict=True))
        ],
    )
    conn.execute(
        insert(MetaEntry), _meta_rows(prepared, built_at, digest.finish(prepared.node_lists, prepared.depth_columns))
    )


def write_url(location: DatabaseLocation, prepared: PreparedSolution, built_at: str, progress: Progress) -> None:
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


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    return True


def remove_stale_temporaries(path: Path) -> list[Path]:
    """Delete what killed builds of `path` left behind (`.NAME.PID.tmp` and its SQLite journal
    files) when that PID is no longer running; a running build's files are left alone."""
    removed = []
    for leftover in path.parent.glob(f".{glob.escape(path.name)}.*.tmp*"):
        pid_text = leftover.name[len(path.name) + 2 :].split(".", 1)[0]
        if pid_text.isdigit() and int(pid_text) != os.getpid() and not _process_alive(int(pid_text)):
            leftover.unlink(missing_ok=True)
            removed.append(leftover)
    return removed


def write_file(path: Path, prepared: PreparedSolution, built_at: str, progress: Progress) -> None:
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


def write_solution(location: DatabaseLocation, prepared: PreparedSolution, built_at: str, progress: Progress) -> None:
    if location.path is not None:
        write_file(location.path, prepared, built_at, progress)
    else:
        write_url(location, prepared, built_at, progress)
