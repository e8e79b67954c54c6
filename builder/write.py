"""Write a `Solution` into a database: SQLite files atomically, other URLs in one transaction."""

from __future__ import annotations

import glob
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import msgpack
from sqlalchemy import Connection, delete, insert, inspect, select

from builder.solver import Solution, SolvedPosition
from ttt_db import __version__
from ttt_db.database import make_engine
from ttt_db.digest import content_digest
from ttt_db.errors import DatabaseError
from ttt_db.location import DatabaseLocation
from ttt_db.schema import SCHEMA_VERSION, Base, DepthCount, MetaEntry, NodeList, PositionRow

RULES = {"board": "3x3", "in_a_row": 3, "first": "o"}


def position_rows(positions: Iterable[SolvedPosition]) -> list[dict[str, Any]]:
    pack = msgpack.packb
    return [
        {
            "id": number,
            "board": p.board,
            "canonical": p.canonical,
            "depth": p.depth,
            "status": p.status,
            "to_move": p.to_move,
            "score": p.score,
            "value": p.value,
            "remoteness": p.remoteness,
            "sv_score": p.sv_score,
            "best_moves": pack(p.best_moves),
            "best_moves_shortest": pack(p.best_moves_shortest),
            "move_values": pack(p.move_values),
            "playout": pack(p.playout),
            "paths": p.paths,
        }
        for number, p in enumerate(positions)
    ]


def solution_digest(solution: Solution) -> str:
    """SHA-256 of everything the build derives (`ttt_db.digest`), as `verify` recomputes it."""
    return content_digest(
        (row.values() for row in position_rows(solution.positions)),  # type: ignore[misc]
        solution.node_lists,
        [solution.tree_nodes_by_depth, solution.positions_by_depth, solution.canonical_by_depth],
    )


def build_figures(solution: Solution) -> dict[str, Any]:
    """The figures of the build, as stored in the meta table and checked by `verify`."""
    lists = solution.node_lists
    canonical = set(lists["canonical"])

    def values(positions: Iterable[SolvedPosition]) -> dict[str, int]:
        counts = {"win": 0, "loss": 0, "draw": 0}
        for position in positions:
            counts[position.value] += 1
        return counts

    return {
        "tree_nodes": sum(solution.tree_nodes_by_depth),
        "positions": len(solution.positions),
        "canonical_positions": len(lists["canonical"]),
        "playing": len(lists["playing"]),
        "playing_canonical": len(canonical.intersection(lists["playing"])),
        "decision": len(lists["decision"]),
        "decision_canonical": len(lists["decision_canonical"]),
        "values": values(solution.positions),
        "values_canonical": values(p for p in solution.positions if p.board in canonical),
    }


def _meta_rows(solution: Solution, built_at: str) -> list[dict[str, str]]:
    meta = {
        "schema_version": SCHEMA_VERSION,
        "rules": RULES,
        "package_version": __version__,
        "built_at": built_at,
        "figures": build_figures(solution),
        "content_sha256": solution_digest(solution),
    }
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
        marker = conn.execute(
            select(MetaEntry.value).where(MetaEntry.key == "schema_version")
        ).scalar_one_or_none()
    if marker is None:
        raise DatabaseError(
            f"table {ours[0]} already exists and was not made by ttt-db (no schema_version in "
            f"{MetaEntry.__tablename__}); not replacing it: use another database or schema"
        )
    version = json.loads(marker)
    return version if isinstance(version, int) else -1


def _write_tables(conn: Connection, solution: Solution, built_at: str) -> None:
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
    conn.execute(insert(MetaEntry), _meta_rows(solution, built_at))
    conn.execute(insert(PositionRow), position_rows(solution.positions))
    conn.execute(
        insert(NodeList),
        [
            {"name": name, "size": len(boards), "boards": msgpack.packb(boards)}
            for name, boards in solution.node_lists.items()
        ],
    )
    conn.execute(
        insert(DepthCount),
        [
            {"depth": depth, "tree_nodes": nodes, "positions": count, "canonical_positions": canon}
            for depth, (nodes, count, canon) in enumerate(
                zip(
                    solution.tree_nodes_by_depth,
                    solution.positions_by_depth,
                    solution.canonical_by_depth,
                    strict=True,
                )
            )
        ],
    )


def write_url(location: DatabaseLocation, solution: Solution, built_at: str) -> None:
    engine = make_engine(location)
    try:
        with engine.begin() as conn:
            _write_tables(conn, solution, built_at)
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


def write_file(path: Path, solution: Solution, built_at: str) -> None:
    """Write beside `path`, then move into place: an interrupted build leaves nothing behind,
    and a killed one leaves files that the next build removes."""
    _writable_folder(path)
    remove_stale_temporaries(path)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        temporary.unlink(missing_ok=True)
        write_url(DatabaseLocation(f"sqlite:///{temporary}", temporary), solution, built_at)
        os.replace(temporary, path)
    except PermissionError as error:
        raise DatabaseError(f"cannot write {path}: permission denied ({error.filename})") from None
    finally:
        temporary.unlink(missing_ok=True)


def write_solution(location: DatabaseLocation, solution: Solution, built_at: str) -> None:
    if location.path is not None:
        write_file(location.path, solution, built_at)
    else:
        write_url(location, solution, built_at)
