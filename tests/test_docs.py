"""The repository documents itself: docs/ holds the figures the code checks, every page is
linked, nothing cites files outside the repository, and the license is declared once."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from ttt_db.store import published as figures

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def _numbers(text: str) -> list[int]:
    return [int(n.replace(",", "")) for n in re.findall(r"\d[\d,]*", text)]


def _figure_row(label_start: str) -> str:
    table = (DOCS / "figures.md").read_text()
    return next(line for line in table.splitlines() if line.startswith(f"| {label_start}"))


def test_documented_figures_are_the_ones_verify_checks() -> None:
    assert _numbers(_figure_row("tree nodes by depth").split("|")[2]) == list(figures.TREE_NODES_BY_DEPTH)
    assert _numbers(_figure_row("positions by depth").split("|")[2]) == list(figures.POSITIONS_BY_DEPTH)
    assert _numbers(_figure_row("nodes of the full game tree").split("|")[2]) == [sum(figures.TREE_NODES_BY_DEPTH)]
    values = _numbers(_figure_row("value for the side to move").split("|")[2])
    assert values == [figures.VALUES["win"], figures.VALUES["loss"], figures.VALUES["draw"]]
    assert _numbers(_figure_row("decision positions").split("|")[2]) == [
        figures.LIST_SIZES["decision"],
        figures.LIST_SIZES["decision_canonical"],
    ]


def test_every_docs_page_is_linked_from_the_index_and_the_index_from_the_readme() -> None:
    index = (DOCS / "README.md").read_text()
    pages = sorted(p.name for p in DOCS.glob("*.md") if p.name != "README.md")
    assert pages == sorted(set(re.findall(r"\]\(([a-z]+\.md)\)", index)))
    assert "(docs/README.md)" in (ROOT / "README.md").read_text()


def test_nothing_cites_documents_outside_the_repository() -> None:
    for path in [
        *ROOT.glob("ttt_db/**/*.py"),
        *ROOT.glob("builder/*.py"),
        *ROOT.glob("cli/*.py"),
        *ROOT.glob("tests/*.py"),
        *DOCS.glob("*.md"),
        ROOT / "README.md",
    ]:
        if path.name == "test_docs.py":
            continue
        text = path.read_text()
        assert "REFERENCE.md" not in text and "DESIGN.md" not in text, path


def test_license_is_an_spdx_string_with_its_file() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "MIT"
    assert project["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")


def test_readme_warns_that_checking_runs_user_code() -> None:
    text = " ".join((ROOT / "README.md").read_text().split())
    assert "runs your code, as you: only check code you trust." in text
