"""What `verify` reports, and the checks that need no solver: the file's integrity, the content
digest, and the figures of the build against the stored columns (and, for tic-tac-toe, against
the published figures). `builder.verify` holds every row to a fresh solve and to its stored
children, column by column, and calls these."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ttt_db.errors import DatabaseDamagedError, ReadFailedError
from ttt_db.game.definition import TICTACTOE
from ttt_db.store import published
from ttt_db.store.database import SolutionDatabase

MAX_ROWS_SHOWN = 20


@dataclass
class VerifyReport:
    """`damaged_rows` lead: one line per damaged stored value (board, field, found, expected);
    `problems` follow: figures, lists and digests that disagree, found before expected."""

    checks: list[str] = field(default_factory=list)  # names of the checks run
    damaged_rows: list[str] = field(default_factory=list)
    damaged_row_count: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems and not self.damaged_row_count

    def damaged(self, line: str) -> None:
        self.damaged_row_count += 1
        if len(self.damaged_rows) < MAX_ROWS_SHOWN:
            self.damaged_rows.append(line)

    def expect(self, what: str, found: object, expected: object) -> None:
        self.checks.append(what)
        if found != expected:
            self.problems.append(f"{what}: found {found}, expected {expected}")

    def to_document(self) -> dict[str, Any]:
        """What `ttt-db verify --json` prints."""
        return {
            "ok": self.ok,
            "checks": self.checks,
            "damaged_rows": self.damaged_rows,
            "damaged_row_count": self.damaged_row_count,
            "problems": self.problems,
        }


def check_file(report: VerifyReport, db: SolutionDatabase) -> None:
    """The engine's integrity check and the content digest against the one the build stored."""
    report.checks.append("file integrity")
    try:
        report.problems += [f"file integrity: {line}" for line in db.integrity_problems()[:MAX_ROWS_SHOWN]]
    except ReadFailedError as error:  # the engine cannot even run its check through the damage
        report.problems.append(f"file integrity: {error}")
    report.checks.append("content digest")
    try:
        stored_digest = db.meta()["content_sha256"]
        digest = db.content_digest()
    except (DatabaseDamagedError, ReadFailedError) as error:
        report.problems.append(f"content digest: {error}")
        return
    if digest != stored_digest:
        report.problems.append(
            f"content digest: the stored content hashes to {digest[:16]}..., "
            f"the build recorded {str(stored_digest)[:16]}..."
        )


def check_figures(
    report: VerifyReport,
    db: SolutionDatabase,
    by_depth: Mapping[str, Sequence[int | None]],
    figures: Mapping[str, Any],
    list_sizes: Mapping[str, int | None],
) -> None:
    """The stored depth table and meta figures against the expected ones (`by_depth`: tree nodes,
    positions, canonical positions per depth; `figures`: the meta figures), and for tic-tac-toe
    the stored figures and the sizes of the named lists (`list_sizes`) against the published ones."""
    try:
        depth_rows = db.depth_figures()
        stored = db.meta().get("figures", {})
    except DatabaseDamagedError as error:
        report.problems.append(f"{error.what} ({error.where})")
        return
    stored_by_depth = {
        "tree nodes": [r.tree_nodes for r in depth_rows],
        "positions": [r.positions for r in depth_rows],
        "canonical positions": [r.canonical_positions for r in depth_rows],
    }
    for name, column in stored_by_depth.items():
        report.expect(f"{name} by depth (depth table)", column, list(by_depth[name]))
    for key, value in figures.items():
        report.expect(f"meta figure {key}", stored.get(key), value)
    if db.game == TICTACTOE:
        report.expect(
            "positions by depth (published)", stored_by_depth["positions"], list(published.POSITIONS_BY_DEPTH)
        )
        if db.has_extras:  # the paths that count the tree are kept with the extras
            report.expect(
                "tree nodes by depth (published)", stored_by_depth["tree nodes"], list(published.TREE_NODES_BY_DEPTH)
            )
        report.expect("values (published)", stored.get("values"), published.VALUES)
        report.expect(
            "values of canonical positions (published)", stored.get("values_canonical"), published.VALUES_CANONICAL
        )
        for name, size in published.LIST_SIZES.items():
            report.expect(f"node list {name} size (published)", list_sizes.get(name), size)
