"""`ttt-db verify` in arrays: every stored column held, level by level, to two things.

1. A fresh solve: the columns the builder would write now (`builder.write.level_columns`).
2. The row's own stored children: each level re-solved by the solver's minimax step from the
   values stored one level deeper (not from the fresh solve), and its `paths` recounted from the
   stored paths one level up. A row edited consistently with a fresh solve of the wrong thing
   still disagrees with its stored children, and the other way round.

Every damaged row is named (board, column, found, expected); then the figures of the build, the
node lists, the file's integrity and the content digest (`ttt_db.store.verify`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import cache
from typing import Any

import numpy as np

from builder.core import solve_level
from builder.solver import Ints, Level, Solution, _count_paths, _solve_finished, _solve_playing, solve_game
from builder.write import PreparedSolution, level_columns, prepare
from ttt_db.errors import DatabaseDamagedError
from ttt_db.game.definition import Game
from ttt_db.game.rules import VALUES
from ttt_db.game.slots import board_of_slot
from ttt_db.store.codes import value_of_code
from ttt_db.store.core_arrays import Codes, Tables, expand_level
from ttt_db.store.database import SolutionDatabase
from ttt_db.store.digest import levels_of_rows
from ttt_db.store.encoding import REMOTENESS_BITS, REMOTENESS_MASK
from ttt_db.store.tables import CORE, POSITION_COLUMNS, POSITIONS
from ttt_db.store.verify import MAX_ROWS_SHOWN, VerifyReport, check_figures, check_file

_COLUMN = {name: index for index, name in enumerate(POSITION_COLUMNS)}
_VALUE_COLUMNS = ("score", "sv_score", "remoteness", "o_wins", "x_wins", "draws")


def verify_core(
    report: VerifyReport, db: SolutionDatabase, progress: Callable[[str, int, int], None] | None = None
) -> None:
    """Every level of the core held to the level below it, deepest first, by the retrograde rule
    and the rules of finished boards (`builder.core.solve_level` over the stored children, each
    slot taking its representative's code): a stored code that its children do not give, a
    representative left empty or a non-representative filled is named by its board. The
    positions and classes counted per depth are held to the depth table."""
    game = db.game
    tables = Tables(game)
    core = db.core
    below: Codes | None = None
    counted: dict[int, tuple[int, int]] = {}
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
                f"{board}: core code {_code_text(int(stored[slot]))}, its children give "
                f"{_code_text(int(expected.stored[slot]))} (level {depth} slot {slot})"
            )
        for _ in wrong[MAX_ROWS_SHOWN:]:
            report.damaged_row_count += 1
        counted[depth] = (expected.positions, expected.canonical)
        below = expand_level(tables, depth, stored)
    try:
        depth_rows = db.depth_figures()
    except DatabaseDamagedError as error:
        report.problems.append(f"{error.what} ({error.where})")
        return
    found = [(row.positions, row.canonical_positions) for row in depth_rows]
    # the rows' depth table ends at the deepest level a game reaches; the core's levels go on, empty
    by_depth = [counted[depth] for depth in range(game.cells + 1)]
    while len(by_depth) > len(found) and by_depth[-1] == (0, 0):
        by_depth.pop()
    report.expect("positions and classes by depth (core)", found, by_depth)


def _code_text(code: int) -> str:
    decoded = value_of_code(code)
    return "empty" if decoded is None else f"{decoded[0]} in {decoded[1]}"


@cache
def _fresh(game: Game) -> PreparedSolution:
    """The solve is deterministic: one per process and game serves every comparison."""
    return prepare(solve_game(game))


def verify_database(db: SolutionDatabase, progress: Callable[[str, int, int], None] | None = None) -> VerifyReport:
    """Every check of the stored database; `report.ok` when nothing disagrees. Damage is reported,
    never raised."""
    report = VerifyReport()
    game = db.game
    verify_core(report, db, progress)
    if not db.has_rows:
        check_file(report, db, [])
        return report
    prepared = _fresh(game)
    stored = _stored_levels(db)
    damaged: set[tuple[int, str]] = set()
    report.checks.append("every row equals a fresh solve")
    aligned = _compare_with_solve(report, prepared.solution, stored, damaged)
    report.checks.append("every row follows from its stored children")
    _compare_with_children(report, prepared.solution, stored, aligned, damaged)
    sizes = _check_node_lists(report, db, prepared)
    _check_stored_figures(report, db, prepared, sizes)
    check_file(report, db, sorted(stored.items()))  # the rows read once serve the digest too
    return report


def _stored_levels(db: SolutionDatabase) -> dict[int, Sequence[Sequence[Any]]]:
    rows = db.reader.rows(f"SELECT {', '.join(POSITION_COLUMNS)} FROM {POSITIONS} ORDER BY depth, key")
    return dict(levels_of_rows((tuple(row) for row in rows), _COLUMN["depth"]))


def _shown(column: str, value: Any, cells: int) -> Any:
    """A stored value as a person reads it: moves for a mask, (move, value, remoteness) per cell."""
    if column in ("best_moves", "best_moves_shortest") and type(value) is int:
        return [cell for cell in range(cells) if value >> cell & 1]
    if column == "move_values" and isinstance(value, bytes | bytearray | memoryview):
        decoded = []
        for cell, byte in enumerate(bytes(value)):
            if byte:
                rank = (byte >> REMOTENESS_BITS) - 1
                name = VALUES[rank] if 0 <= rank < len(VALUES) else f"?{byte}"
                decoded.append((cell, name, byte & REMOTENESS_MASK))
        return decoded
    return value


def _plain(value: Any) -> Any:
    return bytes(value) if isinstance(value, memoryview) else value


def _differences(game: Game, found: Sequence[Sequence[Any]], expected: list[list[Any]]) -> list[tuple[int, str, str]]:
    """(key, column, "found ..., expected ...") wherever `found` differs from `expected` (rows aligned)."""
    keys = expected[0]
    differences = []
    for name, index in _COLUMN.items():
        found_column, expected_column = [_plain(v) for v in found[index]], expected[index]
        if found_column == expected_column:
            continue
        for row, (a, b) in enumerate(zip(found_column, expected_column, strict=True)):
            if a != b:
                shown = f"found {_shown(name, a, game.cells)}, expected {_shown(name, b, game.cells)}"
                differences.append((keys[row], name, shown))
    return differences


def _compare_with_solve(
    report: VerifyReport,
    solution: Solution,
    stored: dict[int, Sequence[Sequence[Any]]],
    damaged: set[tuple[int, str]],
) -> dict[int, bool]:
    """Each level's rows against the fresh solve's, adding every damaged (key, column) to `damaged`;
    whether each level's rows are the solve's rows (same keys, in order), so that its columns can
    be compared as arrays."""
    game = solution.game
    aligned: dict[int, bool] = {}
    for depth in range(len(solution.levels)):
        expected = level_columns(solution, depth)
        found = stored.get(depth)
        if found is not None and list(found[0]) == expected[0]:
            aligned[depth] = True
            for key, column, shown in _differences(game, found, expected):
                report.damaged(f"{game.board_of(key)}: {column}: {shown}")
                damaged.add((key, column))
            continue
        aligned[depth] = False
        found_keys = set(found[0]) if found is not None else set()
        for key in sorted(set(expected[0]) - found_keys):
            report.damaged(f"{game.board_of(key)}: no row (a fresh solve has one at depth {depth})")
        for key in sorted(found_keys - set(expected[0])):
            report.damaged(f"key {key}: a row at depth {depth} that no game reaches there")
    for depth in sorted(set(stored) - set(range(len(solution.levels)))):
        report.damaged(f"{len(stored[depth][0])} rows at depth {depth}, which no game reaches")
    return aligned


def _with_stored_values(level: Level, found: Sequence[Sequence[Any]]) -> Level | None:
    """The fresh level with its value columns replaced by the stored ones; None when one of them
    holds a value that is not a whole number (the comparison with the solve names it)."""
    arrays: dict[str, Ints] = {}
    for column in (*_VALUE_COLUMNS, "paths"):
        values = found[_COLUMN[column]]
        if not all(type(value) is int for value in values):
            return None
        arrays[column] = np.array(values, dtype=np.int64)
    return replace(
        level,
        score=arrays["score"],
        sv_score=arrays["sv_score"],
        remoteness=arrays["remoteness"],
        playout=np.stack([arrays["o_wins"], arrays["x_wins"], arrays["draws"]], axis=1),
        paths=arrays["paths"],
    )


def _compare_with_children(
    report: VerifyReport,
    solution: Solution,
    stored: dict[int, Sequence[Sequence[Any]]],
    aligned: dict[int, bool],
    damaged: set[tuple[int, str]],
) -> None:
    """Re-solve each level from the stored values one level deeper, recount paths from the
    stored paths one level up, and compare with the stored level: a value a fresh solve does not
    already name is one that follows from a damaged child or parent, counted."""
    following_damage = 0
    game = solution.game
    levels = solution.levels
    for depth in range(len(levels)):
        if not aligned.get(depth):
            continue
        parent = replace(levels[depth])
        _solve_finished(game, parent)
        following = None
        if depth + 1 < len(levels) and aligned.get(depth + 1):
            following = _with_stored_values(levels[depth + 1], stored[depth + 1])
            if following is not None:
                _solve_playing(parent, following)
        if depth > 0 and aligned.get(depth - 1):
            above = _with_stored_values(levels[depth - 1], stored[depth - 1])
            if above is not None:
                recounted = replace(parent)
                _count_paths(above, recounted)
                parent = replace(parent, paths=recounted.paths)
        if following is None and depth + 1 < len(levels):
            continue  # the level below is damaged beyond arithmetic: its rows are named already
        mixed = list(levels)
        mixed[depth] = parent
        if following is not None:
            mixed[depth + 1] = following
        expected = level_columns(Solution(game, mixed), depth)
        for key, column, shown in _differences(game, stored[depth], expected):
            if (key, column) not in damaged:
                following_damage += 1
                if not damaged:  # consistent with a fresh solve, yet not with its own children
                    report.damaged(f"{game.board_of(key)}: {column}: {shown} (from its stored children)")
    if following_damage and damaged:
        report.problems.append(
            f"{following_damage:,} values of other rows disagree with the damaged rows they follow from"
        )


def _check_node_lists(report: VerifyReport, db: SolutionDatabase, prepared: PreparedSolution) -> dict[str, int]:
    """Every stored node list against the solve's; the stored sizes, for the published figures."""
    sizes = {}
    for name, keys in prepared.node_lists.items():
        what = f"node list {name}"
        report.checks.append(what)
        try:
            found = db.node_list_keys(name)
        except DatabaseDamagedError as error:
            report.problems.append(f"{what}: {error.what}")
            continue
        sizes[name] = len(found)
        if found != keys.tolist():
            report.problems.append(f"{what}: found {len(found):,} boards, expected {len(keys):,}, or others")
    return sizes


def _check_stored_figures(
    report: VerifyReport, db: SolutionDatabase, prepared: PreparedSolution, sizes: dict[str, int]
) -> None:
    """The stored depth table and meta figures against the fresh solve's, and for tic-tac-toe the
    stored ones against the published figures (found: stored; expected: solve or published)."""
    solution = prepared.solution
    by_depth = {
        "tree nodes": solution.tree_nodes_by_depth,
        "positions": solution.positions_by_depth,
        "canonical positions": solution.canonical_by_depth,
    }
    check_figures(report, db, by_depth, prepared.figures, sizes)
