"""`ttt-db verify` in arrays, without trusting the builder's output: every level of the core held
to the level below it, the extras held to the core, the counts and figures to what the core gives.

1. The core, deepest level first: each stored code against the codes of its stored children (the
   retrograde rule; each child slot taking its class representative's code) and the rules of
   finished boards, with the representatives and the counts of each level.
2. The extras (games that keep them): the odds recounted from the stored codes backward, the paths
   forward, against every stored class's.
3. The depth table and the meta figures against the figures of the core (and on 3x3 the published
   ones), the file's integrity and the content digest (`ttt_db.store.verify`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from builder.core import SolvedLevel, solve_level
from builder.extras import ExtrasLevel, extras_of_codes
from builder.levels import core_level
from builder.write import core_figures, reached_depths
from ttt_db.errors import DatabaseDamagedError, ReadFailedError
from ttt_db.game.slots import board_of_slot
from ttt_db.store.codes import CHUNK_SLOTS, code_text, value_of_code
from ttt_db.store.core_arrays import Codes, Tables, expand_level
from ttt_db.store.database import SolutionDatabase
from ttt_db.store.extras import EXTRAS_FIELDS
from ttt_db.store.tables import CORE, EXTRAS
from ttt_db.store.verify import MAX_ROWS_SHOWN, VerifyReport, check_figures, check_file

Progress = Callable[[str, int, int], None]


def verify_database(db: SolutionDatabase, progress: Progress | None = None) -> VerifyReport:
    """Every check of the stored database; `report.ok` when nothing disagrees. Damage is reported,
    never raised: a file the engine cannot read through (a damaged page or index) is reported with
    the engine's integrity check."""
    report = VerifyReport()
    try:
        return _verify(report, db, progress)
    except ReadFailedError as error:
        report.damaged(f"the file cannot be read through: {error}")
        check_file(report, db)
        return report


def _verify(report: VerifyReport, db: SolutionDatabase, progress: Progress | None) -> VerifyReport:
    stored, solved = verify_core(report, db, progress)
    extras = verify_extras(report, db, stored) if db.has_extras else None
    levels = [core_level(level, []) for level in solved]
    if value_of_code(int(solved[0].stored[0])) is None:  # damage below leaves the root unsolved
        report.problems.append("figures: the empty board has no value from the levels below it")
        check_file(report, db)
        return report
    figures: dict[str, Any] = core_figures(db.game, levels, int(solved[0].stored[0]))
    tree_nodes: list[int | None] = [None] * len(levels)
    if extras is not None:
        tree_nodes = [level.tree_nodes for level in extras]
        figures = {"game": figures.pop("game"), "tree_nodes": sum(level.tree_nodes for level in extras)} | figures
    reached = reached_depths(levels)
    by_depth: dict[str, list[int | None]] = {
        "tree nodes": tree_nodes[:reached],
        "positions": [level.positions for level in levels[:reached]],
        "canonical positions": [level.canonical for level in levels[:reached]],
    }
    sizes = {name: figures.get(name) for name in ("playing", "playing_canonical", "decision", "decision_canonical")}
    sizes |= {"all": figures["positions"], "canonical": figures["canonical_positions"]}
    check_figures(report, db, by_depth, figures, sizes)
    check_file(report, db)
    return report


def verify_core(
    report: VerifyReport, db: SolutionDatabase, progress: Progress | None = None
) -> tuple[list[Codes], list[SolvedLevel]]:
    """Every level of the core held to the level below it, deepest first, by the retrograde rule
    and the rules of finished boards (`builder.core.solve_level` over the stored children, each
    slot taking its representative's code): a stored code that its children do not give, a
    representative left empty or a non-representative filled is named by its board. The stored
    levels, by depth, and each level as its stored children give it."""
    game = db.game
    tables = Tables(game)
    core = db.core
    below: Codes | None = None
    stored_levels: dict[int, Codes] = {}
    solved: dict[int, SolvedLevel] = {}
    report.checks.append("every level of the core follows from the level below it")
    chunk_rows = {
        row.depth: row.chunks for row in db.reader.rows(f"SELECT depth, COUNT(*) AS chunks FROM {CORE} GROUP BY depth")
    }
    for depth in range(game.cells, -1, -1):
        data, damage = core.level(depth)
        for error in damage:
            report.damaged(f"{error.where}: {error.what}")
        if chunk_rows.get(depth, 0) != core.chunk_count(depth):
            report.damaged(
                f"table {CORE}, level {depth}: {chunk_rows.get(depth, 0)} chunks, expected {core.chunk_count(depth)}"
            )
        stored: Codes = np.frombuffer(data, np.uint8)

        def level_progress(done: int, total: int, depth: int = depth) -> None:
            if progress is not None:
                progress(f"verify level {depth}", done, total)

        expected = solve_level(tables, depth, below, level_progress)
        wrong = np.flatnonzero(stored != expected.stored)
        for slot in wrong[:MAX_ROWS_SHOWN].tolist():
            board = board_of_slot(game, depth, slot)
            report.damaged(
                f"{board}: core code {code_text(int(stored[slot]))}, its children give "
                f"{code_text(int(expected.stored[slot]))} (level {depth} slot {slot})"
            )
        report.damaged_row_count += max(0, len(wrong) - MAX_ROWS_SHOWN)
        stored_levels[depth], solved[depth] = stored, expected
        below = expand_level(tables, depth, stored)
    depths = range(game.cells + 1)
    return [stored_levels[depth] for depth in depths], [solved[depth] for depth in depths]


def verify_extras(report: VerifyReport, db: SolutionDatabase, stored: list[Codes]) -> list[ExtrasLevel]:
    """Every stored class's odds and paths against those recounted from the stored codes; the
    recounted levels."""
    game = db.game
    report.checks.append("every class's odds and paths follow from the core")
    recounted = extras_of_codes(game, stored)
    for level in recounted:
        kept = np.flatnonzero(stored[level.depth])
        chunk_of = kept // CHUNK_SLOTS
        for chunk in level.chunks:
            mine = np.flatnonzero(chunk_of == chunk.chunk)
            try:
                found = db.core.extras_level_chunk(level.depth, chunk.chunk, len(mine))
            except DatabaseDamagedError as error:
                report.damaged(f"{error.where}: {error.what}")
                continue
            wrong = np.flatnonzero((found != level.values[mine]).any(axis=1))
            for index in wrong[:MAX_ROWS_SHOWN].tolist():
                slot = int(kept[mine[index]])
                shown = dict(zip(EXTRAS_FIELDS, found[index].tolist(), strict=True))
                expected = dict(zip(EXTRAS_FIELDS, level.values[mine[index]].tolist(), strict=True))
                report.damaged(
                    f"{board_of_slot(game, level.depth, slot)}: extras {shown}, the core gives {expected} "
                    f"(table {EXTRAS}, level {level.depth} chunk {chunk.chunk})"
                )
            report.damaged_row_count += max(0, len(wrong) - MAX_ROWS_SHOWN)
    return recounted
