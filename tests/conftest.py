"""One database built per test session into a temporary directory, shared by every test."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ttt_db.build import build_database
from ttt_db.store.database import SolutionDatabase, open_database

# the pins every build records (ttt_db.store.pins) go to a data folder of this process's own, which
# the commands the tests start inherit: never the user's
os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="ttt-db-tests-data-")
os.environ.pop("TTT_DB_DIGEST", None)

# a suite started as a background job of a script inherits Ctrl-C ignored, and so would every
# command it starts: they then never see the Ctrl-C the signal tests send. Handled here, it is
# reset to the default in each child, where Python turns it into KeyboardInterrupt again.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(scope="session")
def db_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("db") / "ttt.sqlite"
    summary = build_database(path)
    assert summary.built
    return path


@pytest.fixture(scope="session")
def db_3x4k3_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 12-cell game's database: enough rows that reads take their bulk paths (numpy)."""
    from ttt_db.game.definition import Game

    path = tmp_path_factory.mktemp("3x4k3") / "3x4k3.sqlite"
    build_database(path, game=Game.parse("3x4k3"))
    return path


@pytest.fixture(scope="session")
def db(db_path: Path) -> Iterator[SolutionDatabase]:
    with open_database(db_path) as database:
        yield database


@pytest.fixture(scope="session")
def positions(db: SolutionDatabase) -> dict[str, object]:
    return {p.cells: p for p in db.all_positions()}


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A PostgreSQL server of the test session's own; the tests that need it skip with the
    reason when the machine cannot run one. Its folder is outside pytest's (which only root
    may enter), so the server can run as the postgres user."""
    from postgres_server import postgres_server, why_not_available

    reason = why_not_available()
    if reason is not None:
        pytest.skip(reason)
    folder = Path(tempfile.mkdtemp(prefix="ttt-db-postgres-"))
    try:
        with postgres_server(folder) as url:
            yield url
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def run(db_path: Path):
    """Invoke the CLI against the session database: run("best-moves", "ox..x....")."""
    from ttt_db.cli.app import app

    runner = CliRunner()

    def invoke(*args: str, input: str | None = None, env: dict[str, str] | None = None):
        return runner.invoke(app, list(args), input=input, env={"TTT_DB": str(db_path), **(env or {})})

    return invoke


@pytest.fixture
def served(db_path: Path) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """`ttt-db serve --port 0` on the session database, on 127.0.0.1: the process and the line
    it printed (with the URL); killed at the end if the test has not stopped it."""
    server = subprocess.Popen(
        [sys.executable, "-m", "ttt_db.cli", "serve", "--port", "0", "--db", str(db_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        yield server, server.stdout.readline()
    finally:
        server.kill()
        server.wait()


@pytest.fixture
def altered_copy(db_path: Path, tmp_path: Path):
    """A copy of the session database with SQL statements applied, each required to change
    exactly one row: altered_copy("update ttt_positions set ...")."""

    def make(*statements: str) -> Path:
        copy = tmp_path / f"altered-{len(list(tmp_path.iterdir()))}.sqlite"
        copy.write_bytes(db_path.read_bytes())
        with sqlite3.connect(copy) as conn:
            for statement in statements:
                assert conn.execute(statement).rowcount == 1, statement
        return copy

    return make


@pytest.fixture
def stopping_build(monkeypatch: pytest.MonkeyPatch):
    """`stopping_build(levels)`: the next builds stop (KeyboardInterrupt) once `levels` levels are
    saved, as Ctrl-C between two levels would; it returns the depths saved so far, and
    `stopping_build(None)` lets builds run again."""
    from ttt_db.build.levels import WorkFolder

    real = WorkFolder.save
    saved: list[int] = []

    def stop_after(levels: int | None) -> list[int]:
        def save_or_stop(self, tables, level, counts):  # type: ignore[no-untyped-def]
            if len(saved) == levels:
                raise KeyboardInterrupt
            saved.append(level.depth)
            return real(self, tables, level, counts)

        monkeypatch.setattr(WorkFolder, "save", real if levels is None else save_or_stop)
        return saved

    return stop_after
