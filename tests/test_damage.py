"""Fault injection: a damaged database never answers wrongly and never shows a traceback.
Queries exit 2 with "the database is damaged (what, where): rebuild it ..."; verify reports the
damage and exits 1."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from builder.write import remove_stale_temporaries
from ttt_db.game.definition import TICTACTOE
from ttt_db.store.database import open_database
from ttt_db.store.tables import SCHEMA_VERSION

REBUILD = "rebuild it with `ttt-db build --force`"


def test_a_row_moved_to_another_key_is_refused(run, altered_copy) -> None:
    """Rows are found by their integer key (SQLite's rowid, no separate index to go stale), the
    board itself: a row moved to another key leaves its board without an answer, and stands at a
    board that is not the smallest of its images."""
    edge = TICTACTOE.key(".......o.")  # the canonical image of an o on an edge
    moved = TICTACTOE.key(".....o...")
    damaged = altered_copy(f"update ttt_positions set key = {moved} where key = {edge}")
    answered = run("best-moves", ".o.......", "--db", str(damaged))
    assert answered.exit_code == 2 and answered.stdout == ""
    assert answered.stderr == (
        f"error: the database is damaged (no row for board '.o.......', table ttt_positions): {REBUILD}\n"
    )
    verified = run("verify", "--db", str(damaged))
    assert verified.exit_code == 1
    assert "damaged row: .......o.: no row (a fresh solve has one at depth 1)" in verified.stdout


CENTRE = TICTACTOE.key("....o....")
DAMAGE = [
    (
        f"update ttt_positions set best_moves = 512 where key = {CENTRE}",
        "best moves is 512, not a mask of 9 cells, row for '....o....'",
    ),
    (
        f"update ttt_positions set best_moves = 16 where key = {CENTRE}",
        "best moves holds 4, a cell taken by o, row for '....o....'",
    ),
    (
        f"update ttt_positions set best_moves = 'abc' where key = {CENTRE}",
        "best moves is 'abc', not a mask of 9 cells, row for '....o....'",
    ),
    (
        f"update ttt_positions set o_wins = 0, x_wins = 0, draws = 0 where key = {CENTRE}",
        "playout [0, 0, 0] does not add up to the 40,320 move orders, row for '....o....'",
    ),
    (
        f"update ttt_positions set to_move = 'z' where key = {CENTRE}",
        "side to move 'z', expected 'x', row for '....o....'",
    ),
    (
        f"update ttt_positions set score = 'abc' where key = {CENTRE}",
        "score is 'abc', not a whole number from -1 to 1, row for '....o....'",
    ),
    (
        f"update ttt_positions set move_values = x'90' where key = {CENTRE}",
        "move values are not 9 bytes, row for '....o....'",
    ),
    (
        f"update ttt_positions set move_values = x'000000000000000000' where key = {CENTRE}",
        "a position in play without its moves, row for '....o....'",
    ),
    (f"delete from ttt_positions where key = {CENTRE}", "no row for board '....o....', table ttt_positions"),
]


@pytest.mark.parametrize(("statement", "what"), DAMAGE)
def test_damaged_rows_are_refused_by_queries_and_reported_by_verify(
    run, altered_copy, statement: str, what: str
) -> None:
    damaged = altered_copy(statement)
    for command in ("best-moves", "show"):
        result = run(command, "....o....", "--db", str(damaged))
        assert result.exit_code == 2, result.output
        assert result.stdout == ""
        assert result.stderr == f"error: the database is damaged ({what}): {REBUILD}\n"
    with open_database(damaged) as db:
        positions, damage = db.scan()  # what verify reports as "rows decode and follow the rules"
    if statement.startswith("delete"):  # the scan counts the rows the build counted
        counted = "764 rows, the build counted 765, table ttt_positions"
        assert len(positions) == 764 and [f"{e.what}, {e.where}" for e in damage] == [counted]
    else:
        assert len(positions) == 764 and [f"{e.what}, {e.where}" for e in damage] == [what]


def test_verify_names_the_damaged_row_first_then_what_follows_from_it(run, altered_copy) -> None:
    verified = run("verify", "--db", str(altered_copy(DAMAGE[1][0])))
    assert verified.exit_code == 1
    lines = verified.stdout.splitlines()
    assert lines[0] == "damaged row: ....o....: best_moves: found [4], expected [0, 2, 6, 8]"
    assert lines[-1].startswith("FAILED: 1 damaged value, ")
    assert "Traceback" not in verified.output


@pytest.mark.parametrize(("statement", "what"), DAMAGE[:3])
def test_damaged_best_moves_stop_a_check_with_exit_2(run, altered_copy, statement: str, what: str) -> None:
    result = run("check", "perfect", "--db", str(altered_copy(statement)))
    assert result.exit_code == 2
    assert result.stderr == f"error: the database is damaged ({what}): {REBUILD}\n"


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


def test_a_missing_node_list(run, altered_copy) -> None:
    damaged = altered_copy("delete from ttt_node_lists where name = 'decision'")
    result = run("check", "ai1s", "--strong", "--db", str(damaged))  # not symmetric: asked at every board
    assert result.exit_code == 2
    assert "the database is damaged (node list 'decision' is missing, table ttt_node_lists)" in result.stderr
    assert "mismatch: node list decision: node list 'decision' is missing" in run("verify", "--db", str(damaged)).stdout


def test_a_missing_canonical_node_list_stops_a_symmetric_check(run, altered_copy) -> None:
    damaged = altered_copy("delete from ttt_node_lists where name = 'decision_canonical'")
    result = run("check", "ai14s", "--strong", "--db", str(damaged))  # asked once per class
    assert result.exit_code == 2
    assert "node list 'decision_canonical' is missing" in result.stderr


def test_one_changed_byte_changes_the_digest(run, altered_copy) -> None:
    # a change that keeps every rule (paths are only cross-checked, never decoded) still shows
    damaged = altered_copy(f"update ttt_positions set paths = 2 where key = {TICTACTOE.key('.......xo')}")
    problems = run("verify", "--db", str(damaged)).stdout
    assert "mismatch: content digest: the stored content hashes to" in problems


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
        "import os, signal, builder.write as w\n"
        "real = w.write_url\n"
        "def dying(*a, **k):\n"
        "    real(*a, **k)\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"
        "w.write_url = dying\n"
        f"from builder import build_database; build_database({str(target)!r})\n"
    )
    killed = subprocess.run([sys.executable, "-c", script], check=False)
    assert killed.returncode == -9
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]  # left behind
    from builder import build_database

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
        "import os, signal, sys, builder.write as w\n"
        "real = w.write_url\n"
        "def terminated(*a, **k):\n"
        "    real(*a, **k)\n"
        "    os.kill(os.getpid(), signal.SIGTERM)  # the temporary file is complete, not yet moved\n"
        "w.write_url = terminated\n"
        f"sys.argv = ['ttt-db', 'build', '--quiet', '--db', {str(target)!r}]\n"
        "from cli import main; main()\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
    assert result.returncode == 143, result.stderr
    assert "Traceback" not in result.stderr
    # no database, no temporary file: only the solved levels, which the next build resumes from
    assert [path.name for path in tmp_path.iterdir()] == [".terminated.sqlite.levels"]


def test_a_missing_row_under_a_check_is_damage_not_a_bug(run, altered_copy) -> None:
    damaged = altered_copy(f"delete from ttt_positions where key = {CENTRE}")
    for args in (["check", "perfect", "--strong"], ["check", "ai1s", "--strong"], ["check", "perfect", "--weak"]):
        result = run(*args, "--db", str(damaged))
        assert (result.exit_code, result.stdout) == (2, ""), args
        assert result.stderr == (
            "error: the database is damaged (626 positions in play, the build counted 627, table ttt_positions): "
            f"{REBUILD}\n"
        )
