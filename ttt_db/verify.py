"""Cross-check a built database: re-derive its figures from the stored rows and hold every row
to the rules, to its children (minimax), to its parents (paths) and to its symmetric images."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from math import factorial

from ttt_db import figures
from ttt_db.backup import back_up
from ttt_db.database import SolutionDatabase
from ttt_db.errors import DatabaseDamagedError
from ttt_db.position import Playout, Position
from ttt_db.rules import EMPTY, empty_cells, final_score, mover_at, play, side_to_move, status
from ttt_db.symmetry import canonical_board, symmetric_images, transform_move

MAX_PROBLEMS_PER_CHECK = 20


@dataclass
class VerifyReport:
    checks: list[str] = field(default_factory=list)  # names of the checks run
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def _expect(report: VerifyReport, what: str, found: object, expected: object) -> None:
    report.checks.append(what)
    if found != expected:
        report.problems.append(f"{what}: found {found}, expected {expected}")


def _row_problems(p: Position, by_board: dict[str, Position]) -> list[str]:
    """What is wrong with one row against the rules and its stored children."""
    problems: list[str] = []
    if p.status != status(p.board):
        problems.append(f"status {p.status} but the board says {status(p.board)}")
    if p.depth != 9 - p.board.count(EMPTY):
        problems.append(f"depth {p.depth} for {9 - p.board.count(EMPTY)} marks")
    if p.canonical != canonical_board(p.board):
        problems.append(f"canonical {p.canonical!r} is not the smallest image")
    ways = factorial(9 - p.depth)
    if p.status != "playing":
        expected_score = final_score(p.status, p.depth)
        expected_sv = final_score(p.status, p.depth, shortest=True)
        expected_playout = Playout(ways * (p.status == "o"), ways * (p.status == "x"),
                                   ways * (p.status == "draw"), ways)
        expected_end = (expected_score, expected_sv, 0, (), None, "draw" if p.status == "draw" else "loss")
        found_end = (p.score, p.sv_score, p.remoteness, p.moves, p.to_move, p.value)
        if found_end != expected_end:
            problems.append(f"finished game stores {found_end}, expected {expected_end}")
        if p.playout != expected_playout:
            problems.append("playout of a finished game is not certain")
        return problems
    mover = side_to_move(p.board)
    children = {m: by_board.get(play(p.board, m, mover)) for m in empty_cells(p.board)}
    missing = [m for m, child in children.items() if child is None]
    if missing:
        return problems + [f"children after moves {missing} are not stored"]
    kids = [(m, child) for m, child in children.items() if child is not None]
    backup = back_up(mover, kids)
    expected = (mover, backup.score, backup.value, backup.sv_score, backup.best_moves,
                backup.best_moves_shortest, backup.remoteness)
    found = (p.to_move, p.score, p.value, p.sv_score, p.best_moves, p.best_moves_shortest, p.remoteness)
    if found != expected:
        problems.append(f"stores {found}, its children give {expected}")
    if tuple((a.move, a.value, a.remoteness) for a in p.moves) != backup.move_values:
        problems.append("per-move values disagree with the children")
    # each of the k children is one k-th of the (9 - depth)! move orders: its counts add up
    mean = Playout(sum(k.playout.o_wins for _, k in kids), sum(k.playout.x_wins for _, k in kids),
                   sum(k.playout.draws for _, k in kids), ways)
    if p.playout != mean or any(k.playout.ways * len(kids) != ways for _, k in kids):
        problems.append(f"playout is not the mean of the children's over the {ways} random move orders")
    return problems


def _symmetry_problems(p: Position, by_board: dict[str, Position]) -> list[str]:
    problems = []
    for transform, image in enumerate(symmetric_images(p.board)):
        twin = by_board.get(image)
        if twin is None:
            problems.append(f"image {image!r} is not stored")
            continue
        if (twin.score, twin.value, twin.remoteness, twin.sv_score) != (
            p.score, p.value, p.remoteness, p.sv_score
        ):
            problems.append(f"image {image!r} has another value")
        mapped = tuple(sorted(transform_move(m, transform) for m in p.best_moves))
        if mapped != twin.best_moves:
            problems.append(f"best moves of image {image!r} are not the images of {p.best_moves}")
    return problems


def _expected_paths(positions: list[Position], by_board: dict[str, Position]) -> dict[str, int]:
    """Paths re-derived from the stored rows alone, shallow to deep."""
    paths = {}
    for p in positions:
        if p.depth == 0:
            paths[p.board] = 1
            continue
        last_mover = mover_at(p.depth - 1)
        parents = [p.board[:i] + EMPTY + p.board[i + 1 :] for i in range(9) if p.board[i] == last_mover]
        paths[p.board] = sum(
            paths.get(parent, 0) for parent in parents
            if parent in by_board and by_board[parent].status == "playing"
        )
    return paths


def _check_rows(
    report: VerifyReport, what: str, positions: list[Position],
    problems_of: Callable[[Position], list[str]],
) -> None:
    report.checks.append(what)
    found = 0
    for p in positions:
        for problem in problems_of(p):
            found += 1
            if found <= MAX_PROBLEMS_PER_CHECK:
                report.problems.append(f"{what}: {p.board}: {problem}")
    if found > MAX_PROBLEMS_PER_CHECK:
        report.problems.append(f"{what}: {found - MAX_PROBLEMS_PER_CHECK} more problems not shown")


def _check_file(report: VerifyReport, db: SolutionDatabase) -> None:
    """The engine's integrity check and the content digest against the one the build stored."""
    report.checks.append("file integrity")
    report.problems += [f"file integrity: {line}" for line in db.integrity_problems()[:MAX_PROBLEMS_PER_CHECK]]
    report.checks.append("content digest")
    try:
        stored_digest = db.meta()["content_sha256"]
        digest = db.content_digest()
    except DatabaseDamagedError as error:
        report.problems.append(f"content digest: {error}")
        return
    if digest != stored_digest:
        report.problems.append(f"content digest: the stored content hashes to {digest[:16]}..., "
                               f"the build recorded {str(stored_digest)[:16]}...")


def verify_database(db: SolutionDatabase) -> VerifyReport:
    """Every check of the stored database; `report.ok` when nothing disagrees. Damage (a file
    that fails its integrity check, rows that do not decode, missing lists or meta entries) is
    reported as problems, never raised."""
    report = VerifyReport()
    _check_file(report, db)
    positions, damage = db.scan()
    report.checks.append("rows decode and follow the rules")
    report.problems += [f"rows decode and follow the rules: {error.what} ({error.where})"
                        for error in damage[:MAX_PROBLEMS_PER_CHECK]]
    try:
        _check_content(report, db, positions)
    except DatabaseDamagedError as error:
        report.problems.append(f"{error.what} ({error.where})")
    return report


def _check_content(report: VerifyReport, db: SolutionDatabase, positions: list[Position]) -> None:
    by_board = {p.board: p for p in positions}
    depth_rows = db.depth_figures()

    by_depth = Counter(p.depth for p in positions)
    nodes_by_depth: Counter[int] = Counter()
    for p in positions:
        nodes_by_depth[p.depth] += p.paths
    depths = range(10)
    _expect(report, "positions by depth (rows)",
            tuple(by_depth[d] for d in depths), figures.POSITIONS_BY_DEPTH)
    _expect(report, "tree nodes by depth (sum of paths)",
            tuple(nodes_by_depth[d] for d in depths), figures.TREE_NODES_BY_DEPTH)
    _expect(report, "positions by depth (depth table)",
            tuple(r.positions for r in depth_rows), figures.POSITIONS_BY_DEPTH)
    _expect(report, "tree nodes by depth (depth table)",
            tuple(r.tree_nodes for r in depth_rows), figures.TREE_NODES_BY_DEPTH)
    canonical = [p for p in positions if p.board == p.canonical]
    _expect(report, "canonical positions by depth (depth table)",
            tuple(r.canonical_positions for r in depth_rows),
            tuple(sum(1 for p in canonical if p.depth == d) for d in depths))
    _expect(report, "values", dict(Counter(p.value for p in positions)), figures.VALUES)
    _expect(report, "values of canonical positions",
            dict(Counter(p.value for p in canonical)), figures.VALUES_CANONICAL)

    playing = [p for p in positions if p.status == "playing"]
    decision = [p for p in playing if len(p.best_moves) < len(p.moves)]
    derived_lists = {
        "all": [p.board for p in positions],
        "canonical": [p.board for p in canonical],
        "playing": [p.board for p in playing],
        "decision": [p.board for p in decision],
        "decision_canonical": [p.board for p in decision if p.board == p.canonical],
    }
    for name, expected_size in figures.LIST_SIZES.items():
        try:
            stored = db.node_list(name)
        except DatabaseDamagedError as error:
            report.checks.append(f"node list {name}")
            report.problems.append(f"node list {name}: {error.what}")
            continue
        _expect(report, f"node list {name} size", len(stored), expected_size)
        _expect(report, f"node list {name} matches its definition", stored == derived_lists[name], True)

    stored_figures = db.meta().get("figures", {})
    derived_figures = {
        "tree_nodes": sum(nodes_by_depth.values()),
        "positions": len(positions),
        "canonical_positions": len(canonical),
        "playing": len(playing),
        "playing_canonical": sum(1 for p in playing if p.board == p.canonical),
        "decision": len(decision),
        "decision_canonical": len(derived_lists["decision_canonical"]),
        "values": dict(Counter(p.value for p in positions)),
        "values_canonical": dict(Counter(p.value for p in canonical)),
    }
    for key, value in derived_figures.items():
        _expect(report, f"meta figure {key}", stored_figures.get(key), value)

    paths = _expected_paths(positions, by_board)
    _check_rows(report, "paths", positions,
                lambda p: [] if p.paths == paths[p.board] else [f"paths {p.paths}, parents give {paths[p.board]}"])
    _check_rows(report, "row against rules and children", positions, lambda p: _row_problems(p, by_board))
    _check_rows(report, "symmetric images agree", positions, lambda p: _symmetry_problems(p, by_board))
