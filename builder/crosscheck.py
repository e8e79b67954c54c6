"""Hold a stored database to a fresh solve: every row, list and count must equal what the
builder derives now. `verify` runs it beside `ttt_db.verify`'s own re-derivation."""

from __future__ import annotations

from functools import cache

from builder.solver import Solution, SolvedPosition, solve_game
from ttt_db.database import SolutionDatabase
from ttt_db.errors import DatabaseDamagedError
from ttt_db.position import Playout, Position
from ttt_db.verify import MAX_PROBLEMS_PER_CHECK, VerifyReport

CHECK = "every row equals a fresh solve"


def _stored_fields(p: Position) -> tuple[object, ...]:
    return (p.canonical, p.depth, p.status, p.to_move, p.score, p.value, p.remoteness, p.sv_score,
            p.best_moves, p.best_moves_shortest, tuple((a.move, a.value, a.remoteness) for a in p.moves),
            p.playout, p.paths)


def _solved_fields(s: SolvedPosition) -> tuple[object, ...]:
    return (s.canonical, s.depth, s.status, s.to_move, s.score, s.value, s.remoteness, s.sv_score,
            s.best_moves, s.best_moves_shortest, s.move_values, Playout(*s.playout), s.paths)


@cache
def _fresh_solution() -> Solution:
    """The solve is deterministic: one per process serves every comparison."""
    return solve_game()


def compare_with_fresh_solve(db: SolutionDatabase, report: VerifyReport) -> None:
    """Add the differences between the stored content and a fresh solve to `report`."""
    solution = _fresh_solution()
    positions, _damage = db.scan()  # damaged rows are reported by verify_database
    stored = {p.board: p for p in positions}
    report.checks.append(CHECK)
    problems = []
    for solved in solution.positions:
        found = stored.pop(solved.board, None)
        if found is None:
            problems.append(f"{solved.board}: no usable row")
        elif _stored_fields(found) != _solved_fields(solved):
            problems.append(f"{solved.board}: the stored row differs from the solve")
    problems += [f"{board}: a row no game reaches" for board in stored]
    for name, boards in solution.node_lists.items():
        try:
            if db.node_list(name) != boards:
                problems.append(f"node list {name} differs from the solve")
        except DatabaseDamagedError as error:
            problems.append(f"node list {name}: {error.what}")
    report.problems += [f"{CHECK}: {problem}" for problem in problems[:MAX_PROBLEMS_PER_CHECK]]
    if len(problems) > MAX_PROBLEMS_PER_CHECK:
        report.problems.append(f"{CHECK}: {len(problems) - MAX_PROBLEMS_PER_CHECK} more problems not shown")
