"""What a notebook shows: the displays' MIME bundles as IPython makes them (the board as SVG, a
position, a check report and a search as HTML), held to the reference's answers."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from html import escape
from pathlib import Path

import pytest
import reference

from ttt_db.ais.registry import load_ai
from ttt_db.checks.report import run_checks
from ttt_db.game.board import Board
from ttt_db.game.definition import Game
from ttt_db.game.drawing import SIDE_COLOURS, VALUE_COLOURS
from ttt_db.search.algorithms import search_board
from ttt_db.store.database import SolutionDatabase

SVG = "{http://www.w3.org/2000/svg}"
RULES = reference.TICTACTOE


def _bundle(value: object) -> dict[str, str]:
    formatters = pytest.importorskip("IPython.core.formatters", reason="IPython is not installed")
    return formatters.DisplayFormatter().format(value)[0]


def _svgs(html: str) -> list[ElementTree.Element]:
    return [ElementTree.fromstring(svg) for svg in re.findall(r"<svg.*?</svg>", html, re.S)]


def _cell_rects(svg: ElementTree.Element) -> list[ElementTree.Element]:
    return [rect for rect in svg.iter(f"{SVG}rect") if rect.get("rx") == "6"]


def _ringed(svg: ElementTree.Element) -> list[tuple[str, str]]:
    """(cell name, ring colour) of every ring, the cell named by the column and row labels."""
    found = []
    for ring in svg.iter(f"{SVG}rect"):
        if ring.get("rx") == "4":
            column = (float(ring.get("x")) - 18 - 6) // 56
            row = (float(ring.get("y")) - 18 - 6) // 56
            found.append((f"{'abc'[int(column)]}{int(row) + 1}", ring.get("stroke")))
    return sorted(found)


def test_a_board_shows_as_svg_with_its_marks_and_its_winning_line() -> None:
    board = Board.parse("oooxx....")
    svg = ElementTree.fromstring(_bundle(board)["image/svg+xml"])
    assert len(_cell_rects(svg)) == 9
    marks = [text.text for text in svg.iter(f"{SVG}text") if text.text in ("o", "x")]
    assert sorted(marks) == sorted("oooxx")
    outlined = [rect for rect in _cell_rects(svg) if rect.get("stroke") == SIDE_COLOURS["o"]]
    assert len(outlined) == 3 == len(board.winning_cells)
    wide = ElementTree.fromstring(_bundle(Board.parse("." * 20, game=Game.parse("4x5k4")))["image/svg+xml"])
    labels = [text.text for text in wide.iter(f"{SVG}text")]
    assert (
        len(_cell_rects(wide)) == 20 and labels[:5] == ["a", "b", "c", "d", "e"] and labels[5:9] == ["1", "2", "3", "4"]
    )


def test_a_position_shows_every_move_by_its_value_with_the_best_ringed(db: SolutionDatabase) -> None:
    board = "ox..x...o"  # o to move must block at b3
    html = _bundle(db.lookup(board))["text/html"]
    (svg,) = _svgs(html)
    solve = reference.solver()
    for move, child in RULES.children(board):
        after = solve(child)
        value = "win" if after.score > 0 else "loss" if after.score < 0 else "draw"  # o's side: o moves here
        outcome = "draws" if value == "draw" else f"{'wins' if value == 'win' else 'loses'} in {after.remoteness + 1}"
        cell = [rect for rect in _cell_rects(svg)][move]
        assert cell.get("fill") == VALUE_COLOURS[value][1], move
        assert outcome in html
    assert [name for name, _ in _ringed(svg)] == [Game.parse("3x3k3").move_name(m) for m in reference.best_moves(board)]
    assert "o to move" in html and "a draw" in html


def test_a_decided_position_rings_the_fastest_win_or_the_slowest_loss(db: SolutionDatabase) -> None:
    """Issue 59: in a lost position every move keeps the value, and every one was ringed; the ring
    (as play's hint and the page's) is the slowest loss, and in a won one the fastest win."""
    solve = reference.solver()
    seen = set()
    for board in reference.reachable():
        solved = solve(board)
        if RULES.finished(board) or solved.score == 0:
            continue
        value = "win" if (solved.score > 0) == (RULES.mover(board) == "o") else "loss"
        if value in seen:
            continue
        shortest = reference.best_moves(board, shortest=True)
        if set(shortest) == set(reference.best_moves(board)):
            continue  # every best move as fast: nothing to tell apart
        seen.add(value)
        position = db.lookup(board)
        assert position.value == value and position.hinted_moves == tuple(shortest)
        assert position.to_document()["hinted_moves"] == list(shortest)
        (svg,) = _svgs(_bundle(position)["text/html"])
        assert [name for name, _ in _ringed(svg)] == [Game.parse("3x3k3").move_name(m) for m in shortest], board
        if seen == {"win", "loss"}:
            break
    assert seen == {"win", "loss"}


def test_a_check_report_shows_its_verdict_and_draws_the_decisive_mistakes(db: SolutionDatabase) -> None:
    from test_decisive_mistake import expected_mistake

    report = run_checks(load_ai("ai1s"), db)
    html = _bundle(report)["text/html"]
    assert "<b>not solved</b>" in html
    strong = reference.strong_check_of(load_ai("ai1s").play)
    assert f"{strong.correct:,} of {strong.total:,} decision positions" in html
    for side in ("o", "x"):
        result = getattr(report.weak, side)
        expected = expected_mistake(result.counterexample.moves, side, result.target)
        name = Game.parse("3x3k3").move_name(expected.move)
        assert f"As {side}, move {expected.ply + 1}:" in html and f"it played {expected.move} ({name})," in html
    svgs = _svgs(html)
    assert len(svgs) == 2 + 3  # the two mistakes, then the three shallowest strong failures
    assert report.strong is not None
    for failure in report.strong.failures[:3]:
        assert escape(f"At {failure.board}, {failure.text}.") in html
    mistake = report.mistakes["o"]
    rings = dict(_ringed(svgs[0]))
    assert rings[Game.parse("3x3k3").move_name(mistake.move)] == VALUE_COLOURS["loss"][0]
    assert "<b>solved</b>" in _bundle(run_checks(load_ai("perfect", lambda: db), db))["text/html"]


def test_a_search_shows_its_work_beside_the_databases_answer(db: SolutionDatabase) -> None:
    answer = search_board(db, "alphabeta", Board.parse("........."))
    html = _bundle(answer)["text/html"]
    _, calls = reference.seed_alpha_beta(".........")
    assert "agrees with the database" in html and f"<td>{calls:,}</td>" in html


def test_the_notebook_colours_are_the_pages() -> None:
    css = (Path(__file__).resolve().parents[1] / "cli" / "web" / "static" / "style.css").read_text()
    variables = dict(re.findall(r"--([a-z-]+):\s*(#[0-9a-f]{6})", css))
    assert {side: variables[side] for side in ("o", "x")} == SIDE_COLOURS
    assert {value: (variables[value], variables[f"{value}-bg"]) for value in VALUE_COLOURS} == VALUE_COLOURS
