"""The README's Python lines and the library's front door (open_database, Board.parse, load_ai,
run_checks) run as doctests, against the session's database, as python-chess runs its own."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

from ttt_db.ais.registry import load_ai
from ttt_db.checks.report import run_checks
from ttt_db.game.board import Board
from ttt_db.store.database import open_database

ROOT = Path(__file__).resolve().parents[1]
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@pytest.fixture
def session_database(db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TTT_DB", str(db_path))


def test_the_readme_examples_run(session_database: None) -> None:
    result = doctest.testfile(str(ROOT / "README.md"), module_relative=False, optionflags=FLAGS, verbose=False)
    assert result.attempted >= 10 and result.failed == 0


@pytest.mark.parametrize("function", [open_database, Board.parse, load_ai, run_checks], ids=lambda f: f.__qualname__)
def test_the_front_door_examples_run(session_database: None, function: object) -> None:
    finder, runner = doctest.DocTestFinder(), doctest.DocTestRunner(optionflags=FLAGS)
    tests = [test for test in finder.find(function) if test.examples]
    assert tests, "the docstring shows no example"
    for test in tests:
        test.globs = {"Board": Board, "load_ai": load_ai, "open_database": open_database, "run_checks": run_checks}
        runner.run(test)
    assert runner.summarize(verbose=False).failed == 0
