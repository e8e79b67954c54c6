"""`ttt-db verify`, without trusting the build's output: what it checks and what it reports.

1. The core, deepest level first, through the level walker (`ttt_db.ranked.walk`): every stored
   code held to the codes of its stored children (the retrograde rule) and the rules of finished
   boards, a code where none belongs named by its board, and each level's counts taken.
2. The extras (games that keep them): the odds and paths recounted from the stored levels
   (`ttt_db.store.extras.count_extras`), against every stored class's.
3. The depth table and the meta figures against the figures the core gives (and on 3x3 the
   published ones), the file's integrity and the content digest.

Every chunk read is held to its hash on the way (`ttt_db.store.digest`). A file that passes, read
without a pin given, has its digest recorded (`ttt_db.store.pins`): it is proved from the rules.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ttt_db.errors import DatabaseDamagedError, PinRecordError, ReadFailedError
from ttt_db.game.definition import TICTACTOE
from ttt_db.ranked.backend import as_list
from ttt_db.ranked.slots import board_of_slot
from ttt_db.ranked.step import Level, LevelCounts
from ttt_db.ranked.walk import Damage
from ttt_db.store import published
from ttt_db.store.database import SolutionDatabase
from ttt_db.store.extras import EXTRAS_FIELDS, ExtrasLevel, count_extras
from ttt_db.store.figures import core_figures, reached_depths
from ttt_db.store.pins import pin_recorded, recorded_pin
from ttt_db.store.plain import PlainLevels, Row, held_to_core, stored_rows
from ttt_db.store.tables import EXTRAS, NODE_LISTS_TABLE, PLAIN_KEY, POSITIONS

Progress = Callable[[str, int, int], None]

MAX_ROWS_SHOWN = 20


@dataclass
class VerifyReport:
    """`damaged_rows` lead: one line per damaged stored value (board, field, found, expected);
    `problems` follow: figures, lists and digests that disagree, found before expected."""

    checks: list[str] = field(default_factory=list)  # names of the checks run
    damaged_rows: list[str] = field(default_factory=list)
    damaged_row_count: int = 0
    problems: list[str] = field(default_factory=list)
    pinned: str | None = None  # where a passing verify recorded the digest, and what it replaced

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
            "pinned": self.pinned,
        }


def check_file(report: VerifyReport, database: SolutionDatabase) -> None:
    """The engine's integrity check and the content digest against the one the build stored."""
    report.checks.append("file integrity")
    try:
        report.problems += [f"file integrity: {line}" for line in database.integrity_problems()[:MAX_ROWS_SHOWN]]
    except ReadFailedError as error:  # the engine cannot even run its check through the damage
        report.problems.append(f"file integrity: {error}")
    report.checks.append("content digest")
    try:
        stored_digest = database.meta()["content_sha256"]
        digest = database.content_digest()
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
    database: SolutionDatabase,
    by_depth: Mapping[str, Sequence[int | None]],
    figures: Mapping[str, Any],
    list_sizes: Mapping[str, int | None],
) -> None:
    """The stored depth table and meta figures against the expected ones (`by_depth`: tree nodes,
    positions, canonical positions per depth; `figures`: the meta figures), and for tic-tac-toe
    the stored figures and the sizes of the named lists (`list_sizes`) against the published ones."""
    try:
        depth_rows = database.depth_figures()
        stored = database.meta().get("figures", {})
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
    if database.game == TICTACTOE:
        report.expect(
            "positions by depth (published)", stored_by_depth["positions"], list(published.POSITIONS_BY_DEPTH)
        )
        if database.has_extras:  # the paths that count the tree are kept with the extras
            report.expect(
                "tree nodes by depth (published)", stored_by_depth["tree nodes"], list(published.TREE_NODES_BY_DEPTH)
            )
        report.expect("values (published)", stored.get("values"), published.VALUES)
        report.expect(
            "values of canonical positions (published)", stored.get("values_canonical"), published.VALUES_CANONICAL
        )
        for name, size in published.LIST_SIZES.items():
            report.expect(f"node list {name} size (published)", list_sizes.get(name), size)


def verify_database(database: SolutionDatabase, progress: Progress | None = None) -> VerifyReport:
    """Every check of the stored database; `report.ok` when nothing disagrees. Damage is reported,
    never raised: a file the engine cannot read through (a damaged page or index) is reported with
    the engine's integrity check."""
    report = VerifyReport()
    try:
        _verify(report, database, progress)
    except ReadFailedError as error:
        report.damaged(f"the file cannot be read through: {error}")
        check_file(report, database)
    if report.ok and (database.pin is None or database.pin.recorded):
        _record_proved(report, database)
    return report


def _record_proved(report: VerifyReport, database: SolutionDatabase) -> None:
    """The digest of a file verify proved, recorded as its pin (unless it already is)."""
    digest = database.content_digest()
    try:
        earlier = recorded_pin(database.location)
    except PinRecordError:
        earlier = None  # an unreadable record: replaced by the proof
    if earlier is not None and earlier.digest == digest:
        return
    path, not_pinned = pin_recorded(database.location, digest, "verified")
    if path is not None:
        replaced = f", replacing the digest {earlier.source}" if earlier is not None else ""
        report.pinned = f"recorded its digest in {path}{replaced}"
    elif not_pinned is not None:
        report.pinned = not_pinned


def _verify(report: VerifyReport, database: SolutionDatabase, progress: Progress | None) -> VerifyReport:
    counts, levels, empty_code = verify_core(report, database, progress)
    extras = verify_extras(report, database, levels) if levels is not None else None
    if not report.damaged_row_count:  # rows derived from a damaged core would only repeat its damage
        verify_plain(report, database, levels, counts)
    try:
        figures: dict[str, Any] = core_figures(database.game, counts, empty_code)
    except DatabaseDamagedError:  # damage below leaves the root unsolved
        report.problems.append("figures: the empty board has no value from the levels below it")
        check_file(report, database)
        return report
    tree_nodes: list[int | None] = [None] * len(counts)
    if extras is not None:
        tree_nodes = [level.tree_nodes for level in extras]
        figures = {"game": figures.pop("game"), "tree_nodes": sum(level.tree_nodes for level in extras)} | figures
    reached = reached_depths([level.positions for level in counts])
    by_depth: dict[str, list[int | None]] = {
        "tree nodes": tree_nodes[:reached],
        "positions": [level.positions for level in counts[:reached]],
        "canonical positions": [level.canonical for level in counts[:reached]],
    }
    sizes = {name: figures.get(name) for name in ("playing", "playing_canonical", "decision", "decision_canonical")}
    sizes |= {"all": figures["positions"], "canonical": figures["canonical_positions"]}
    check_figures(report, database, by_depth, figures, sizes)
    check_file(report, database)
    return report


def verify_core(
    report: VerifyReport, database: SolutionDatabase, progress: Progress | None = None
) -> tuple[list[LevelCounts], list[Level] | None, int]:
    """Every level of the core held to the level below it, deepest first (the level walker with a
    report that takes every damage): a stored code that its children do not give, a representative
    left empty or a non-representative filled, a chunk that cannot be read, each named. Each level's
    counts by depth, (for a game that keeps extras) every stored level's codes, and the empty
    board's stored code."""
    game = database.game
    report.checks.append("every level of the core follows from the level below it")

    def damaged(found: Damage | DatabaseDamagedError) -> None:
        if isinstance(found, Damage):
            report.damaged(f"{found.board}: {found.what} (level {found.depth} slot {found.slot})")
        else:
            report.damaged(f"{found.where}: {found.what}")

    counts: dict[int, LevelCounts] = {}
    levels: dict[int, Level] = {}
    empty_code = 0
    for step in database.core.walk("backward", damaged):
        counts[step.depth] = step.counts
        empty_code = int(step.here.codes[0])
        if database.has_extras:
            levels[step.depth] = step.here
        if progress is not None:
            progress("verify levels", game.cells + 1 - step.depth, game.cells + 1)
    depths = range(game.cells + 1)
    return (
        [counts[depth] for depth in depths],
        [levels[depth] for depth in depths] if database.has_extras else None,
        empty_code,
    )


def verify_plain(
    report: VerifyReport, database: SolutionDatabase, levels: Sequence[Level] | None, counts: Sequence[LevelCounts]
) -> None:
    """Every row of the plain tables (where the build wrote them) against the row derived from the
    stored levels, and each table's rows against the count and hash in the meta."""
    try:
        entry = database.meta().get(PLAIN_KEY)
    except DatabaseDamagedError:
        return  # the meta's own damage is reported with the figures
    if entry is None:
        return
    report.checks.append("every row of the plain tables follows from the core")
    if levels is None:
        report.problems.append(f"meta entry {PLAIN_KEY}: plain tables in a database that keeps no extras")
        return
    lists: list[Row] = []  # the lists' rows, gathered while the positions' stream past

    def positions() -> Iterator[Row]:
        for position_rows, list_rows in PlainLevels(database.core.tables, levels, counts).rows():
            lists.extend(list_rows)
            yield from position_rows

    for table, derived in ((POSITIONS, positions()), (NODE_LISTS_TABLE, iter(lists))):
        try:
            counted = held_to_core(stored_rows(database.reader, table), derived, table, report.damaged)
        except (DatabaseDamagedError, ReadFailedError) as error:
            report.damaged(f"table {table}: {error}")
            return
        report.expect(f"rows and hash of {table} (meta {PLAIN_KEY})", counted.entry(), entry.get(table))


def verify_extras(report: VerifyReport, database: SolutionDatabase, levels: Sequence[Level]) -> list[ExtrasLevel]:
    """Every stored class's odds and paths against those recounted from the stored levels; the
    recounted levels."""
    game = database.game
    report.checks.append("every class's odds and paths follow from the core")
    recounted = count_extras(database.core.tables, levels)
    width = len(EXTRAS_FIELDS)
    for level in recounted:
        start = 0
        for chunk in level.chunks:
            values = as_list(level.values[start * width : (start + chunk.classes) * width])
            slots = as_list(level.slots[start : start + chunk.classes])
            start += chunk.classes
            try:
                found = database.core.extras_level_chunk(level.depth, chunk.chunk, chunk.classes)
            except DatabaseDamagedError as error:
                report.damaged(f"{error.where}: {error.what}")
                continue
            for index, slot in enumerate(slots):
                shown, expected = (
                    found[index * width : (index + 1) * width],
                    values[index * width : (index + 1) * width],
                )
                if shown != expected:
                    found_text = dict(zip(EXTRAS_FIELDS, shown, strict=True))
                    report.damaged(
                        f"{board_of_slot(game, level.depth, slot)}: extras {found_text}, the core gives "
                        f"{dict(zip(EXTRAS_FIELDS, expected, strict=True))} (table {EXTRAS}, level {level.depth} chunk "
                        f"{chunk.chunk})"
                    )
    return recounted
