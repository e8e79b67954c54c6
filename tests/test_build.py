"""The build: reproducible, atomic, compact."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

import ttt_db.build.write
from ttt_db.build import build_database

DATA_TABLES = ("ttt_core", "ttt_extras", "ttt_chunk_hashes", "ttt_depth_counts")


def _dump(path: Path) -> dict[str, list[tuple[object, ...]]]:
    with sqlite3.connect(path) as conn:
        tables = {table: conn.execute(f"select * from {table} order by 1").fetchall() for table in DATA_TABLES}
        tables["ttt_meta"] = conn.execute(
            "select * from ttt_meta where key not in ('built_at', 'build_seconds', 'content_sha256', 'checksum') "
            "order by 1"
        ).fetchall()
    return tables


def test_two_builds_give_identical_content(tmp_path: Path, db_path: Path) -> None:
    again = tmp_path / "again.sqlite"
    build_database(again)
    assert _dump(again) == _dump(db_path)


def test_source_date_epoch_makes_builds_byte_identical(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    first, second = tmp_path / "a.sqlite", tmp_path / "b.sqlite"
    build_database(first)
    build_database(second)
    assert first.read_bytes() == second.read_bytes()


def test_an_existing_database_is_kept_unless_forced(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite"
    assert build_database(path).built
    assert not build_database(path).built
    assert build_database(path, force=True).built


def test_a_failed_build_leaves_nothing_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "db.sqlite"
    build_database(path)
    before = path.read_bytes()

    def interrupted(*args: object) -> list[object]:
        raise KeyboardInterrupt

    monkeypatch.setattr(ttt_db.build.write, "_write_extras", interrupted)
    with pytest.raises(KeyboardInterrupt):
        build_database(path, force=True)
    assert path.read_bytes() == before  # the old database is untouched
    # no temporary database left; the solved levels are kept for the next build to resume from
    assert sorted(p.name for p in tmp_path.iterdir()) == [".db.sqlite.levels", "db.sqlite"]
    with pytest.raises(KeyboardInterrupt):
        build_database(tmp_path / "fresh.sqlite")
    assert not (tmp_path / "fresh.sqlite").exists()
    monkeypatch.undo()
    notices: list[str] = []
    assert build_database(tmp_path / "fresh.sqlite", notice=notices.append).resumed_at == 0
    assert notices == [
        f"resuming the build of 3x3k3 stopped earlier: levels 9 to 0 are solved already "
        f"(kept in {tmp_path / '.fresh.sqlite.levels'})"
    ]
    forced: list[str] = []  # --force solves every level again, whatever a stopped build kept
    assert build_database(path, force=True, notice=forced.append).resumed_at is None and forced == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["db.sqlite", "fresh.sqlite"]


def test_database_file_within_budget(db_path: Path) -> None:
    assert db_path.stat().st_size <= 2_000_000


def test_the_readers_column_lists_are_the_models() -> None:
    from ttt_db.store.schema import CoreChunkRow, ExtrasChunkRow
    from ttt_db.store.tables import CORE_COLUMNS, EXTRAS_COLUMNS

    assert tuple(column.name for column in CoreChunkRow.__table__.columns) == CORE_COLUMNS
    assert tuple(column.name for column in ExtrasChunkRow.__table__.columns) == EXTRAS_COLUMNS
