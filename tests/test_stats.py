"""The statistics of a solution (issue 36), held to tests/reference.py's solver over every
reachable position, on tic-tac-toe and on a rectangular game (other symmetries)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import reference

from ttt_db.outputs.stats import solution_stats
from ttt_db.store.database import open_database


def _reference_figures(rules: reference.Rules):
    """Per depth (value for the mover -> positions), by (value, remoteness), decision positions by
    how many moves keep the value, and the longest win and slowest loss: from the reference."""
    solve = reference.solver(rules)
    per_depth: dict[int, dict[str, int]] = {}
    by_remoteness: dict[tuple[str, int], int] = {}
    keeping: dict[int, int] = {}
    every = 0
    finished = 0
    for board in reference.reachable(rules):
        if rules.finished(board):
            finished += 1
            continue
        solved = solve(board)
        sign = 1 if rules.mover(board) == "o" else -1
        value = {1: "win", 0: "draw", -1: "loss"}[sign * solved.score]
        depth = rules.cells - board.count(".")
        per_depth.setdefault(depth, {"win": 0, "draw": 0, "loss": 0})[value] += 1
        by_remoteness[(value, solved.remoteness)] = by_remoteness.get((value, solved.remoteness), 0) + 1
        children = rules.children(board)
        kept = sum(1 for _, child in children if solve(child).score == solved.score)
        if kept < len(children):
            keeping[kept] = keeping.get(kept, 0) + 1
        else:
            every += 1
    return per_depth, by_remoteness, keeping, every, finished


@pytest.mark.parametrize(
    ("name", "kernel"), [("3x3k3", "interpreted"), ("3x4k3", "interpreted"), ("3x4k3", "compiled")]
)
def test_the_statistics_are_the_references(
    name: str, kernel: str, db_path: Path, db_3x4k3_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if kernel == "compiled":
        pytest.importorskip("numba")
    monkeypatch.setenv("TTT_DB_KERNEL", kernel)  # the tally is counted by the level step, in both
    path = db_path if name == "3x3k3" else db_3x4k3_path
    rules = reference.TICTACTOE if name == "3x3k3" else reference.Rules(3, 4, 3)
    per_depth, by_remoteness, keeping, every, finished = _reference_figures(rules)
    with open_database(path) as db:
        stats = solution_stats(db)
    for depth in stats.depths:
        assert depth.positions == per_depth.get(depth.depth, {"win": 0, "draw": 0, "loss": 0}), depth.depth
    assert {key: positions for key, (positions, _) in stats.by_remoteness.items()} == by_remoteness
    assert stats.keeping == keeping and stats.every_move_keeps == every
    assert sum(depth.finished for depth in stats.depths) == finished
    solve = reference.solver(rules)
    for extreme, value in ((stats.longest_win, "win"), (stats.slowest_loss, "loss")):
        assert extreme is not None
        assert extreme.remoteness == max(r for (v, r) in by_remoteness if v == value)
        solved = solve(extreme.board)
        sign = 1 if rules.mover(extreme.board) == "o" else -1
        assert {1: "win", -1: "loss"}.get(sign * solved.score) == value and solved.remoteness == extreme.remoteness


def test_stats_prints_and_json(run) -> None:
    text = run("stats")
    assert text.exit_code == 0, text.output
    document = json.loads(run("stats", "--json").stdout)
    decision = len(reference.decision_boards())
    assert document["decision"] == decision
    in_play = sum(sum(depth["positions"].values()) for depth in document["depths"])
    assert document["in_play"] == in_play
    share = decision / in_play
    said = f"decision positions (some move loses value): {decision:,} of {in_play:,} in play ({share:.1%});"
    assert said in text.stdout
    assert f"the longest forced win: {document['longest_win']['remoteness']} plies" in text.stdout


def test_a_notebook_shows_the_statistics_as_a_chart(db_path: Path) -> None:
    import xml.etree.ElementTree as ET

    with open_database(db_path) as db:
        stats = solution_stats(db)
    html = stats._repr_html_()
    svg = ET.fromstring(html[html.index("<svg") : html.index("</svg>") + len("</svg>")])
    titles = [element.text for element in svg.iter("{http://www.w3.org/2000/svg}title")]
    assert len(titles) == 3 * len(stats.depths)
    six = stats.depths[6]
    assert f"depth 6: {six.positions['win']:,} win for {six.to_move}" in titles


def test_the_api_answers_the_librarys_statistics_and_chart(db) -> None:
    from starlette.testclient import TestClient

    from ttt_db.outputs.stats import depth_chart
    from ttt_db.web.app import create_app

    stats = solution_stats(db)
    with TestClient(create_app(db)) as client:
        answer = client.get("/api/stats").json()
    assert answer == stats.to_document() | {"chart": depth_chart(stats)}


def test_the_text_keeps_its_columns_apart_at_any_size(db_path: Path) -> None:
    """Issue 59: past ten million positions a depth's counts ran into the next column (4x5k4's
    `5,757,816 (1,439,807)12,705,588`). The figures of tic-tac-toe scaled up must still read as
    separate columns."""
    from dataclasses import replace

    from ttt_db.cli.render import stats_text

    with open_database(db_path) as db:
        stats = solution_stats(db)
    big = 10**8 + 7

    def scaled(counts: dict[str, int]) -> dict[str, int]:
        return {value: count * big for value, count in counts.items()}

    large = replace(
        stats,
        depths=[
            replace(
                depth, positions=scaled(depth.positions), classes=scaled(depth.classes), finished=depth.finished * big
            )
            for depth in stats.depths
        ],
        by_remoteness={
            key: (positions * big, classes * big) for key, (positions, classes) in stats.by_remoteness.items()
        },
    )
    lines = stats_text(large).splitlines()
    start = lines.index("positions in play by their value for the side to move (classes up to symmetry in brackets)")
    rows = lines[start + 2 : start + 2 + len(stats.depths)]
    for row, depth in zip(rows, large.depths, strict=True):
        expected = [str(depth.depth), depth.to_move]
        for value in ("win", "draw", "loss"):
            expected += [f"{depth.positions[value]:,}", f"({depth.classes[value]:,})"]
        assert row.split() == [*expected, f"{depth.finished:,}"], row
    plies = lines.index("positions in play by value and remoteness (plies to the end with best play)")
    for row in lines[plies + 2 : plies + 2 + len({r for _, r in stats.by_remoteness})]:
        assert len(row.split()) == 4, row  # plies, win, draw, loss
