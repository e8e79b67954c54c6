"""Figures from one source: every measured time and size the documents quote is in
docs/performance.md, which is the benchmark's record (docs/measured.json) rendered; any other
time or size in the README, the docs or a command's --help is a limit the code sets, held here to
the constant that sets it, or a budget of the benchmark's."""

from __future__ import annotations

import json
import re
from pathlib import Path

import typer
from benchmark import MEASURED, PERFORMANCE, merged_rows, render_performance
from typer.testing import CliRunner

from ttt_db.ais.isolation import MAX_REPLY_BYTES
from ttt_db.ais.limits import DEFAULT_IMPORT_SECONDS
from ttt_db.build.census import CENSUS_BEGIN, CENSUS_END, census_games, census_markdown, rows_of_document
from ttt_db.cli.app import app
from ttt_db.cli.checks import WEAK_NOTICE_SECONDS
from ttt_db.cli.progress import LineBar
from ttt_db.cli.serve import SWITCH_INTERVAL
from ttt_db.search.algorithms import ALL_ALGORITHMS
from ttt_db.store.mirror import FETCH_SECONDS
from ttt_db.web.checking import CHECK_MEMORY_MB
from ttt_db.web.server import HEAD_BYTES, REQUEST_SECONDS
from ttt_db.web.service import IDDFS_MAX_SECONDS, SEARCH_SECONDS

ROOT = Path(__file__).resolve().parents[1]
CENSUS_RECORD = ROOT / "docs" / "census.json"
FIGURE = re.compile(r"(?<![\w@.])(\d[\d,]*(?:\.\d+)?) ?(ms|s|seconds|minutes|hours|KB|MB|GB)\b")


def _figures(text: str) -> list[str]:
    return [f"{number} {unit}" for number, unit in FIGURE.findall(text)]


def _limits() -> set[str]:
    """The limits the code sets, written as the documents write them."""
    iddfs = [float(name.partition("@")[2]) for name in ALL_ALGORITHMS if name.startswith("iddfs@")]
    seconds = [DEFAULT_IMPORT_SECONDS, SEARCH_SECONDS, IDDFS_MAX_SECONDS, LineBar.LINE_SECONDS, WEAK_NOTICE_SECONDS]
    return {
        *(f"{value:g} s" for value in [*seconds, REQUEST_SECONDS, *iddfs]),
        f"{HEAD_BYTES // 1024} KB",
        f"{MAX_REPLY_BYTES // 1024} KB",
        f"{CHECK_MEMORY_MB / 1024:g} GB",
        f"{SWITCH_INTERVAL * 1000:g} ms",
        f"{FETCH_SECONDS / 3600:g} hours",
    }


def _budgets() -> set[str]:
    record = json.loads(MEASURED.read_text())
    return {f"{m['budget']:g} {m['unit']}" for m in record["measurements"] if m["budget"] is not None}


def test_the_performance_page_is_the_benchmarks_record() -> None:
    assert PERFORMANCE.read_text() == render_performance(json.loads(MEASURED.read_text()))


def test_a_partial_run_keeps_the_rows_it_did_not_measure_in_place() -> None:
    """`--keep-unmeasured`: a measurement measured again replaces the last record's, the rows under
    it with it (the record keeps their names, not their indentation); the others stay where they
    were, each with its own date; new ones follow."""

    def row(name: str, value: float, date: str) -> dict[str, object]:
        return {"name": name, "value": value, "date": date}

    earlier = [
        row("3x3 build", 1.0, "old"),
        row("in seconds", 0.5, "old"),
        row("4x4k4 export", 2.0, "old"),
        row("in seconds", 9.0, "old"),
        row("5x5k4 build", 3.0, "old"),
    ]
    measured = [row("5x5k4 build", 4.0, "new"), row("in seconds", 600.0, "new"), row("3x3 build", 1.5, "new")]
    assert merged_rows(earlier, measured, {"in seconds"}) == [
        row("3x3 build", 1.5, "new"),
        row("4x4k4 export", 2.0, "old"),
        row("in seconds", 9.0, "old"),
        row("5x5k4 build", 4.0, "new"),
        row("in seconds", 600.0, "new"),
    ]
    assert merged_rows(earlier, [row("a new row", 7.0, "new")], {"in seconds"}) == [
        *earlier,
        row("a new row", 7.0, "new"),
    ]


def _census_section(text: str) -> tuple[str, str]:
    """A document without its census section (written by `ttt-db census --markdown`), and the section."""
    begin, end = text.find(CENSUS_BEGIN), text.find(CENSUS_END)
    if begin < 0:
        return text, ""
    return text[:begin] + text[end + len(CENSUS_END) :], text[begin : end + len(CENSUS_END)]


def test_the_census_table_is_the_census_record() -> None:
    """docs/games.md's census section is docs/census.json (`ttt-db census --json`) rendered: its
    measured times and sizes come from that one record, as performance.md's from the benchmark's."""
    rows, max_cells = rows_of_document(json.loads(CENSUS_RECORD.read_text()))
    section = _census_section((ROOT / "docs" / "games.md").read_text())[1]
    assert section == census_markdown(rows, census_games(max_cells))


def test_no_document_quotes_a_measured_figure() -> None:
    allowed = _limits() | _budgets()
    documents = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    found = {
        (path.name, figure)
        for path in documents
        if path != PERFORMANCE
        for figure in _figures(_census_section(path.read_text())[0])
        if figure not in allowed
    }
    assert found == set(), "measured figures belong in docs/performance.md (tests/benchmark.py --write-docs)"


def test_no_help_quotes_a_measured_figure() -> None:
    runner = CliRunner()
    allowed = _limits() | _budgets()
    found = set()
    for name in typer.main.get_command(app).commands:  # type: ignore[attr-defined]
        text = runner.invoke(app, [name, "--help"], env={"COLUMNS": "200"}).stdout
        found |= {(name, figure) for figure in _figures(text) if figure not in allowed}
    assert found == set()


def test_the_pattern_finds_what_it_must() -> None:
    assert _figures("builds in 2 s, 3 MB, p99 1.3 ms; ai14s, dls@3, 0.09 MB") == ["2 s", "3 MB", "1.3 ms", "0.09 MB"]
