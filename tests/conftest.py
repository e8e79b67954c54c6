"""One database built per test session into a temporary directory, shared by every test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from builder import build_database
from ttt_db.database import SolutionDatabase, open_database


@pytest.fixture(scope="session")
def db_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("db") / "ttt.sqlite"
    summary = build_database(path)
    assert summary.built
    return path


@pytest.fixture(scope="session")
def db(db_path: Path) -> Iterator[SolutionDatabase]:
    with open_database(db_path) as database:
        yield database


@pytest.fixture(scope="session")
def positions(db: SolutionDatabase) -> dict[str, object]:
    return {p.board: p for p in db.load_all()}


@pytest.fixture
def run(db_path: Path):
    """Invoke the CLI against the session database: run("best-moves", "ox..x....")."""
    from cli.app import app

    runner = CliRunner()

    def invoke(*args: str, input: str | None = None, env: dict[str, str] | None = None):
        return runner.invoke(app, list(args), input=input, env={"TTT_DB": str(db_path), **(env or {})})

    return invoke
