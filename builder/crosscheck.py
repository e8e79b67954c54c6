"""Hold a stored database to a fresh solve: every row, list and count must equal what the
builder derives now. `verify` runs it beside `ttt_db.store.verify`'s own re-derivation."""

from __future__ import annotations

from functools import cache
from typing import Any

from sqlalchemy import select

from builder.solver import solve_game
from builder.write import PreparedSolution, position_rows, prepare
from ttt_db.errors import DatabaseDamagedError
from ttt_db.game.definition import Game
from ttt_db.store.database import SolutionDatabase
from ttt_db.store.schema import PositionRow
from ttt_db.store.verify import MAX_PROBLEMS_PER_CHECK, VerifyReport

CHECK = "every row equals a fresh solve"
_positions = PositionRow.__table__


@cache
def _fresh_solution(game: Game) -> PreparedSolution:
    """The solve is deterministic: one per process and game serves every comparison."""
    return prepare(solve_game(game))


def _stored_rows(db: SolutionDatabase) -> dict[int, tuple[Any, ...]]:
    with db.engine.connect() as conn:
        rows = conn.execute(select(_positions)).all()
    return {row.key: tuple(bytes(v) if isinstance(v, memoryview) else v for v in row) for row in rows}


def compare_with_fresh_solve(db: SolutionDatabase, report: VerifyReport) -> None:
    """Add the differences between the stored content and a fresh solve to `report`."""
    game = db.game
    prepared = _fresh_solution(game)
    stored = _stored_rows(db)
    report.checks.append(CHECK)
    problems = []
    for row in position_rows(prepared.solution):
        key = row[0]
        found = stored.pop(key, None)
        if found is None:
            problems.append(f"{game.board_of(key)}: no row")
        elif found != row:
            problems.append(f"{game.board_of(key)}: the stored row differs from the solve")
    problems += [f"key {key}: a row no game reaches" for key in stored]
    for name, keys in prepared.node_lists.items():
        try:
            if db.node_list_keys(name) != keys:
                problems.append(f"node list {name} differs from the solve")
        except DatabaseDamagedError as error:
            problems.append(f"node list {name}: {error.what}")
    report.problems += [f"{CHECK}: {problem}" for problem in problems[:MAX_PROBLEMS_PER_CHECK]]
    if len(problems) > MAX_PROBLEMS_PER_CHECK:
        report.problems.append(f"{CHECK}: {len(problems) - MAX_PROBLEMS_PER_CHECK} more problems not shown")
