"""Fault injection: a damaged database never answers wrongly and never shows a traceback.
Queries exit 2 with "the database is damaged (what, where): rebuild it ..."; verify reports the
damage and exits 1."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from ttt_db.build.write import remove_stale_temporaries
from ttt_db.store.tables import SCHEMA_VERSION

REBUILD = "rebuild it with `ttt-db build --force`"


def test_a_chunk_moved_to_another_level_is_refused(run, altered_copy) -> None:
    """Each chunk's checksum is seeded with its level and number: level 1's chunk copied over
    level 2's is no answer for level 2."""
    damaged = altered_copy(
        "update ttt_core set codes = (select codes from ttt_core where depth = 1), "
        "checksum = (select checksum from ttt_core where depth = 1) where depth = 2"
    )
    answered = run("best-moves", "ox.......", "--db", str(damaged))
    assert (answered.exit_code, answered.stdout) == (2, "")
    assert answered.stderr == (
        "error: the database is damaged (a chunk of the core does not match its checksum, "
        f"table ttt_core, level 2 chunk 0): {REBUILD}\n"
    )
    verified = run("verify", "--db", str(damaged))
    assert verified.exit_code == 1
    assert "damaged row: table ttt_core, level 2 chunk 0: a chunk of the core does not match its checksum" in (
        verified.stdout
    )


DAMAGE = [
    ("update ttt_core set checksum = 0 where depth = 1", "a chunk of the core does not match its checksum", "core"),
    ("update ttt_core set codes = x'00' where depth = 1", "a chunk of the core does not match its checksum", "core"),
    ("update ttt_core set slots = 5 where depth = 1", "a chunk of the core holds 5 slots, not 9", "core"),
    ("delete from ttt_core where depth = 1", "a chunk of the core is missing", "core"),
    (
        "update ttt_extras set checksum = 0 where depth = 1",
        "a chunk of the extras does not match its checksum",
        "extras",
    ),
    ("update ttt_extras set classes = 5 where depth = 1", "a chunk of the extras holds 5 classes, not 3", "extras"),
    ("delete from ttt_extras where depth = 1", "a chunk of the extras is missing", "extras"),
]


@pytest.mark.parametrize(("statement", "what", "table"), DAMAGE)
def test_damaged_chunks_are_refused_by_queries_and_reported_by_verify(
    run, altered_copy, statement: str, what: str, table: str
) -> None:
    damaged = altered_copy(statement)
    for command in ("best-moves", "show"):
        result = run(command, "....o....", "--db", str(damaged))
        assert result.exit_code == 2, result.output
        assert result.stdout == ""
        assert (
            result.stderr == f"error: the database is damaged ({what}, table ttt_{table}, level 1 chunk 0): {REBUILD}\n"
        )
    # the bulk reader: every format and row mode stops at the damaged level, nothing of it written
    for args in (["export"], ["export", "--format", "csv", "--rows", "classes"], ["export", "--depth", "1"]):
        result = run(*args, "--db", str(damaged))
        assert result.exit_code == 2, result.output
        assert f"the database is damaged ({what}, table ttt_{table}, level 1 chunk 0)" in result.stderr
        assert '"depth": 1,' not in result.stdout and ",1,o,o,x," not in result.stdout
    verified = run("verify", "--db", str(damaged))
    assert verified.exit_code == 1
    assert f"damaged row: table ttt_{table}, level 1 chunk 0: {what}" in verified.stdout


@pytest.mark.parametrize(
    "args", [["check", "perfect", "--strong"], ["check", "ai1s", "--strong"], ["check", "perfect"]]
)
def test_a_damaged_chunk_stops_a_check_with_exit_2(run, altered_copy, args: list[str]) -> None:
    result = run(*args, "--db", str(altered_copy(DAMAGE[0][0])))
    assert (result.exit_code, result.stdout) == (2, "")
    assert (
        result.stderr
        == f"error: the database is damaged ({DAMAGE[0][1]}, table ttt_core, level 1 chunk 0): {REBUILD}\n"
    )


def test_a_missing_meta_entry(run, altered_copy) -> None:
    damaged = altered_copy("delete from ttt_meta where key = 'figures'")
    result = run("info", "--db", str(damaged))
    assert (result.exit_code, result.stderr) == (
        2,
        f"error: the database is damaged (meta entry 'figures' is missing, table ttt_meta): {REBUILD}\n",
    )
    verified = run("verify", "--db", str(damaged))
    assert verified.exit_code == 1
    assert "mismatch: content digest: the database is damaged (meta entry 'figures' is missing" in verified.stdout


def test_a_missing_schema_version_is_damage(run, altered_copy) -> None:
    damaged = altered_copy("delete from ttt_meta where key = 'schema_version'")
    result = run("best-moves", "ox..x....", "--db", str(damaged))
    assert result.exit_code == 2
    assert "the database is damaged (meta entry 'schema_version' is missing" in result.stderr


@pytest.mark.parametrize("value", ["'three'", "'{'", "'[3]'"])
def test_a_schema_version_that_is_not_a_number_is_damage_not_a_bug(run, altered_copy, value: str) -> None:
    damaged = altered_copy(f"update ttt_meta set value = {value} where key = 'schema_version'")
    result = run("best-moves", "ox..x....", "--db", str(damaged))
    assert result.exit_code == 2, result.stderr
    assert result.stderr.startswith("error: the database is damaged (meta entry 'schema_version'")
    assert "bug" not in result.stderr


def test_one_changed_count_changes_the_digest(run, db_path: Path, tmp_path: Path) -> None:
    # a change resealed with its checksum, which every read accepts, still shows
    from ttt_db.store.checksum import checksum, seed

    damaged = tmp_path / "counts.sqlite"
    damaged.write_bytes(db_path.read_bytes())
    with sqlite3.connect(damaged) as conn:
        counts = [2, 73, 72, 12]  # one tree node more at depth 2
        conn.execute(
            "update ttt_depth_counts set tree_nodes = 73, checksum = ? where depth = 2",
            (checksum(seed("3x3k3", "depth"), counts),),
        )
    problems = run("verify", "--db", str(damaged)).stdout
    assert "mismatch: content digest: the stored content hashes to" in problems
    # issue 58: info printed the digest the build recorded, not the one the file has
    from ttt_db.store.database import open_database

    with open_database(damaged, recorded=False) as database:
        found, recorded = database.content_digest(), database.meta()["content_sha256"]
    shown = run("info", "--db", str(damaged)).stdout
    assert found != recorded and f"content digest: {found} (its record says {recorded}: the file changed" in shown


def test_a_killed_builds_leftovers_are_removed_by_the_next_build(tmp_path: Path) -> None:
    finished = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True
    )
    dead = int(finished.stdout)  # that process has exited
    target = tmp_path / "db.sqlite"
    stale = [tmp_path / f".db.sqlite.{dead}.tmp", tmp_path / f".db.sqlite.{dead}.tmp-journal"]
    running = tmp_path / f".db.sqlite.{os.getppid()}.tmp"  # a build that is still going
    for leftover in [*stale, running]:
        leftover.write_bytes(b"half a database")
    assert sorted(remove_stale_temporaries(target)) == sorted(stale)
    assert running.exists() and not any(p.exists() for p in stale)


def test_a_build_killed_while_writing_leaves_files_the_next_build_removes(tmp_path: Path) -> None:
    target = tmp_path / "killed.sqlite"
    script = (
        "import os, signal, ttt_db.build.write as w\n"
        "real = w.write_url\n"
        "def dying(*a, **k):\n"
        "    real(*a, **k)\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"
        "w.write_url = dying\n"
        f"from ttt_db.build import build_database; build_database({str(target)!r})\n"
    )
    killed = subprocess.run([sys.executable, "-c", script], check=False)
    assert killed.returncode == -9
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]  # left behind
    from ttt_db.build import build_database

    build_database(target)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["killed.sqlite"]


def test_a_database_of_an_older_schema_is_refused_with_one_line_that_says_to_rebuild(run, altered_copy) -> None:
    older = altered_copy("update ttt_meta set value = '3' where key = 'schema_version'")
    for args in (["best-moves", "ox..x...."], ["check", "ai14s"], ["info"], ["verify"]):
        result = run(*args, "--db", str(older))
        assert result.exit_code == 2 and result.stdout == "", args
        assert result.stderr == (
            f"error: {older} has schema version 3, this ttt-db reads version {SCHEMA_VERSION}: "
            "rebuild it with `ttt-db build --force`\n"
        )


def test_sigterm_while_writing_cleans_up_as_ctrl_c_does(tmp_path: Path) -> None:
    target = tmp_path / "terminated.sqlite"
    script = (
        "import os, signal, sys, ttt_db.build.write as w\n"
        "real = w.write_url\n"
        "def terminated(*a, **k):\n"
        "    real(*a, **k)\n"
        "    os.kill(os.getpid(), signal.SIGTERM)  # the temporary file is complete, not yet moved\n"
        "w.write_url = terminated\n"
        f"sys.argv = ['ttt-db', 'build', '--quiet', '--db', {str(target)!r}]\n"
        "from ttt_db.cli import main; main()\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
    assert result.returncode == 143, result.stderr
    assert "Traceback" not in result.stderr
    # no database, no temporary file: only the solved levels, which the next build resumes from
    assert [path.name for path in tmp_path.iterdir()] == [".terminated.sqlite.levels"]


def test_a_missing_depth_count_is_refused_not_shown(run, altered_copy) -> None:
    damaged = altered_copy("delete from ttt_depth_counts where depth = 5")
    result = run("info", "--db", str(damaged))
    assert result.exit_code == 2 and result.stdout == ""
    assert "the depths [0, 1, 2, 3, 4, 6, 7, 8, 9] do not run from 0 without a gap" in result.stderr
    verified = run("verify", "--db", str(damaged))
    assert verified.exit_code == 1 and "do not run from 0 without a gap" in verified.stdout


def test_a_flipped_byte_in_the_stored_schema_text_is_one_line_and_exit_2(run, db_path, tmp_path) -> None:
    damaged = tmp_path / "schema.sqlite"
    data = bytearray(db_path.read_bytes())
    data[data.find(b"PRIMARY KEY")] ^= 0x80  # no longer UTF-8, no longer SQL
    damaged.write_bytes(bytes(data))
    for args in (["best-moves", "ox..x...."], ["check", "ai14s"], ["info"], ["verify"], ["export"]):
        result = run(*args, "--db", str(damaged))
        assert result.exit_code == 2 and result.stdout == "", args
        assert (
            result.stderr.startswith(f"error: {damaged} is not a ttt-db database (") and result.stderr.count("\n") == 1
        )
