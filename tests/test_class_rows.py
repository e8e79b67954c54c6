"""Issue 56, item 5: a small game read pinned is checked from its plain table's rows, not from
interpreted level walks, and says exactly what the walk over the core says: counts by depth and
kind, every failure, errors, budgets."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ttt_db.ais.protocol import NamedAI
from ttt_db.ais.registry import load_ai
from ttt_db.checks import strong
from ttt_db.checks.budget import CheckBudget
from ttt_db.checks.report import run_checks
from ttt_db.ranked import backend
from ttt_db.store.database import SolutionDatabase, open_database

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
KEEP_ALL = 1_000_000


def misses_forks(board: str) -> list[int]:
    """Wins, else blocks, else the centre, else the first empty cell: blind to forks."""
    mover = "o" if board.count("o") == board.count("x") else "x"
    for side in (mover, "x" if mover == "o" else "o"):
        for line in LINES:
            marks = [board[cell] for cell in line]
            if marks.count(side) == 2 and marks.count(".") == 1:
                return [line[marks.index(".")]]
    return [4] if board[4] == "." else [board.index(".")]


def breaks_late(board: str) -> list[int]:
    """Plays the first empty cell, and raises on boards with six marks or more."""
    if board.count(".") <= 3:
        raise RuntimeError("out of ideas")
    return [board.index(".")]


@pytest.fixture(scope="module")
def both(db_path: Path) -> Iterator[tuple[SolutionDatabase, SolutionDatabase]]:
    with open_database(db_path) as pinned, open_database(db_path, recorded=False) as unpinned:
        yield pinned, unpinned


def _document(ai_name: str, db: SolutionDatabase, **options: bool) -> dict[str, object]:
    users = {"misses-forks": misses_forks, "breaks-late": breaks_late}
    # a user's AI is asked at every board, symmetric or not
    ai = NamedAI(ai_name, users[ai_name], None, "a user's bot") if ai_name in users else load_ai(ai_name, lambda: db)
    report = run_checks(ai, db, weak=False, budget=CheckBudget(failures_kept=KEEP_ALL), **options)
    return report.to_document(0, KEEP_ALL)


@pytest.mark.parametrize("options", [{}, {"canonical": True}, {"shortest": True}], ids=["all", "canonical", "shortest"])
@pytest.mark.parametrize("name", ["perfect", "perfect-shortest", "ai14s", "ai1s", "ai2s", "dls@2"])
def test_the_rows_check_says_what_the_core_walk_says(
    both: tuple[SolutionDatabase, SolutionDatabase], name: str, options: dict[str, bool]
) -> None:
    pinned, unpinned = both
    assert pinned.plain_rows_held and not unpinned.plain_rows_held
    assert _document(name, pinned, **options) == _document(name, unpinned, **options)


@pytest.mark.parametrize("name", ["misses-forks", "breaks-late"])
def test_a_users_faults_are_told_alike_from_rows_and_from_the_core(
    both: tuple[SolutionDatabase, SolutionDatabase], name: str
) -> None:
    pinned, unpinned = both
    from_rows = _document(name, pinned)
    assert from_rows == _document(name, unpinned)
    found = from_rows["strong"]
    assert isinstance(found, dict)
    if name == "misses-forks":  # it answers one move everywhere, so its failures are its wrong answers
        assert found["failing"] > 0 and "error" not in found["by_kind"]
    else:
        boards = [failure["board"] for failure in found["failures"] if failure.get("error")]
        assert boards and all(board.count(".") <= 3 for board in boards)
        assert found["by_kind"]["error"] == len(boards)


def test_a_pinned_small_game_is_checked_from_its_rows(both, monkeypatch: pytest.MonkeyPatch) -> None:
    pinned, unpinned = both
    read = []
    levels = strong.decision_levels
    monkeypatch.setattr(strong, "decision_levels", lambda reader, **kw: read.append(1) or levels(reader, **kw))
    run_checks(load_ai("ai14s"), pinned, weak=False)
    assert read == [1]
    run_checks(load_ai("ai14s"), unpinned, weak=False)
    assert read == [1]


@pytest.mark.parametrize("name", ["ai1s", "perfect"])
def test_a_budget_stops_the_rows_check_where_it_stops_the_core_walk(both, name: str) -> None:
    """Stopped at a level's end, the two say the same; inside a level, the same count of boards,
    the levels before it alike (a level's boards are read in key order from rows, in stored
    order from the core). Perfect, asked once per class, is counted a level at a time from the
    database's own moves: stopped after the level that spends its budget."""
    pinned, unpinned = both
    first_levels = sum(1 for board in pinned.node_list("decision") if board.count(".") >= 8)
    for boards in (0, first_levels, 500) if name == "ai1s" else (0, 1, 200):
        found = [
            run_checks(load_ai(name, lambda db=db: db), db, weak=False, budget=CheckBudget(max_boards=boards)).strong
            for db in (pinned, unpinned)
        ]
        rows, walk = (result.to_dict() if result else None for result in found)
        assert rows is not None and walk is not None and rows["stopped"] is not None
        if boards == 500:
            reached = rows["depth_reached"]
            for document in (rows, walk):
                document["by_depth"] = {d: kinds for d, kinds in document["by_depth"].items() if int(d) < reached}
                for key in ("by_kind", "failures", "failing", "correct"):
                    document.pop(key)
        assert rows == walk


def test_a_compiled_game_checked_from_its_rows_says_the_same(
    db_3x4k3_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """3x4k3 runs compiled and so walks its core; forced onto its rows, every answer is the same."""
    cases = [("ai1s", False), ("ai1s", True), ("perfect", True)]
    with open_database(db_3x4k3_path) as pinned:
        walked = [_document(name, pinned, shortest=shortest) for name, shortest in cases]
        read = []
        levels = strong.decision_levels
        monkeypatch.setattr(strong, "decision_levels", lambda reader, **kw: read.append(1) or levels(reader, **kw))
        monkeypatch.setattr(backend, "runs_interpreted", lambda slots: True)
        assert [_document(name, pinned, shortest=shortest) for name, shortest in cases] == walked
        assert read == [1, 1, 1]


@pytest.mark.parametrize("name", ["perfect", "perfect-shortest"])
def test_a_pinned_small_games_own_ais_are_checked_weakly_by_the_search_alike(
    both: tuple[SolutionDatabase, SolutionDatabase], name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read pinned, the weak check of the database's own AIs on a small game is the depth-first
    search over the rows' moves, not the interpreted walk over the core; its report is the walk's."""
    from ttt_db.checks import weak

    pinned, unpinned = both
    walks = []
    walk = weak.check_weak_over_core
    monkeypatch.setattr(weak, "check_weak_over_core", lambda *args: walks.append(1) or walk(*args))
    documents = [
        run_checks(load_ai(name, lambda db=db: db), db, strong=False).to_document() for db in (pinned, unpinned)
    ]
    assert walks == [1]  # the unpinned handle's only
    assert documents[0] == documents[1] and documents[0]["weak"]["solved"] is True
