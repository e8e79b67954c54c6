"""Cross-check a built database: re-derive its figures from the stored (canonical) rows and hold
every row to the rules, to its children (minimax), to its parents (paths) and to its own
symmetries. For tic-tac-toe the figures are also held to the published ones (`figures`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from math import factorial
from typing import Any

from ttt_db.errors import DatabaseDamagedError
from ttt_db.game.definition import TICTACTOE, Game
from ttt_db.game.rules import EMPTY, empty_cells, final_score, play, side_to_move, status
from ttt_db.game.symmetry import canonical_board, symmetric_images
from ttt_db.store import published as figures
from ttt_db.store.database import SolutionDatabase
from ttt_db.store.minimax_step import minimax_step
from ttt_db.store.position import Playout, Position

MAX_PROBLEMS_PER_CHECK = 20


@dataclass
class VerifyReport:
    checks: list[str] = field(default_factory=list)  # names of the checks run
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_document(self) -> dict[str, Any]:
        """What `ttt-db verify --json` prints."""
        return {"ok": self.ok, "checks": self.checks, "problems": self.problems}


def _expect(report: VerifyReport, what: str, found: object, expected: object) -> None:
    report.checks.append(what)
    if found != expected:
        report.problems.append(f"{what}: found {found}, expected {expected}")


def _row_problems(p: Position, by_board: dict[str, Position], game: Game) -> list[str]:
    """What is wrong with one row against the rules and its stored children."""
    problems: list[str] = []
    n = game.cells
    if p.status != status(p.board, game):
        problems.append(f"status {p.status} but the board says {status(p.board, game)}")
    if p.depth != n - p.board.count(EMPTY):
        problems.append(f"depth {p.depth} for {n - p.board.count(EMPTY)} marks")
    if p.board != canonical_board(p.board, game):
        problems.append("the board is not the smallest of its images")
    ways = factorial(n - p.depth)
    if p.status != "playing":
        expected_score = final_score(p.status, p.depth)
        expected_sv = final_score(p.status, p.depth, shortest=True, cells=n)
        expected_playout = Playout(
            ways * (p.status == "o"), ways * (p.status == "x"), ways * (p.status == "draw"), ways
        )
        expected_end = (expected_score, expected_sv, 0, (), None, "draw" if p.status == "draw" else "loss")
        found_end = (p.score, p.sv_score, p.remoteness, p.moves, p.to_move, p.value)
        if found_end != expected_end:
            problems.append(f"finished game stores {found_end}, expected {expected_end}")
        if p.playout != expected_playout:
            problems.append("playout of a finished game is not certain")
        return problems
    mover = side_to_move(p.board)
    children = {m: by_board.get(canonical_board(play(p.board, m, mover), game)) for m in empty_cells(p.board)}
    missing = [m for m, child in children.items() if child is None]
    if missing:
        return problems + [f"children after moves {missing} are not stored"]
    kids = [(m, child) for m, child in children.items() if child is not None]
    step = minimax_step(mover, kids)
    expected = (
        mover,
        step.score,
        step.value,
        step.sv_score,
        step.best_moves,
        step.best_moves_shortest,
        step.remoteness,
    )
    found = (p.to_move, p.score, p.value, p.sv_score, p.best_moves, p.best_moves_shortest, p.remoteness)
    if found != expected:
        problems.append(f"stores {found}, its children give {expected}")
    if tuple((a.move, a.value, a.remoteness) for a in p.moves) != step.move_values:
        problems.append("per-move values disagree with the children")
    # each of the k children is one k-th of the (cells - depth)! move orders: its counts add up
    mean = Playout(
        sum(k.playout.o_wins for _, k in kids),
        sum(k.playout.x_wins for _, k in kids),
        sum(k.playout.draws for _, k in kids),
        ways,
    )
    if p.playout != mean or any(k.playout.ways * len(kids) != ways for _, k in kids):
        problems.append(f"playout is not the mean of the children's over the {ways} random move orders")
    return problems


def _symmetry_problems(p: Position, game: Game) -> list[str]:
    """A board its own image under a transform must keep its best moves under that transform."""
    problems = []
    images = symmetric_images(p.board, game)
    if p.orbit != len(set(images)):
        problems.append(f"orbit {p.orbit}, the board has {len(set(images))} distinct images")
    for transform, image in enumerate(images):
        if image != p.board:
            continue
        mapped = tuple(sorted(game.inverses[transform][m] for m in p.best_moves))
        if mapped != p.best_moves:
            problems.append(f"best moves {p.best_moves} are not symmetric under transform {transform}")
    return problems


def _expected_paths(positions: list[Position], by_board: dict[str, Position], game: Game) -> dict[str, int]:
    """Paths re-derived from the stored rows alone, shallow to deep: the move sequences into a
    class are those into its parents' classes, `paths * orbit` counting every board of a class."""
    into_class: Counter[str] = Counter()
    paths = {}
    for p in positions:  # (depth, key) order: every parent before its children
        paths[p.board] = 1 if p.depth == 0 else into_class[p.board] // p.orbit
        if p.status != "playing" or p.board not in by_board:
            continue
        mover = side_to_move(p.board)
        for move in empty_cells(p.board):
            child = canonical_board(play(p.board, move, mover), game)
            into_class[child] += paths[p.board] * p.orbit
    return paths


def _images(p: Position, game: Game) -> list[str]:
    return sorted(set(symmetric_images(p.board, game)))


def _check_rows(
    report: VerifyReport,
    what: str,
    positions: list[Position],
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
        report.problems.append(
            f"content digest: the stored content hashes to {digest[:16]}..., "
            f"the build recorded {str(stored_digest)[:16]}..."
        )


def verify_database(db: SolutionDatabase) -> VerifyReport:
    """Every check of the stored database; `report.ok` when nothing disagrees. Damage (a file
    that fails its integrity check, rows that do not decode, missing lists or meta entries) is
    reported as problems, never raised."""
    report = VerifyReport()
    _check_file(report, db)
    positions, damage = db.scan()
    report.checks.append("rows decode and follow the rules")
    report.problems += [
        f"rows decode and follow the rules: {error.what} ({error.where})" for error in damage[:MAX_PROBLEMS_PER_CHECK]
    ]
    try:
        _check_content(report, db, positions)
    except DatabaseDamagedError as error:
        report.problems.append(f"{error.what} ({error.where})")
    return report


def _check_content(report: VerifyReport, db: SolutionDatabase, positions: list[Position]) -> None:
    game = db.game
    by_board = {p.board: p for p in positions}
    depth_rows = db.depth_figures()
    depths = range(game.cells + 1)
    by_depth: Counter[int] = Counter()
    nodes_by_depth: Counter[int] = Counter()
    canonical_by_depth: Counter[int] = Counter()
    for p in positions:
        by_depth[p.depth] += p.orbit
        nodes_by_depth[p.depth] += p.paths * p.orbit
        canonical_by_depth[p.depth] += 1
    last = max(by_depth, default=0)
    derived_positions = tuple(by_depth[d] for d in depths if d <= last)
    derived_nodes = tuple(nodes_by_depth[d] for d in depths if d <= last)
    _expect(report, "positions by depth (depth table)", tuple(r.positions for r in depth_rows), derived_positions)
    _expect(report, "tree nodes by depth (depth table)", tuple(r.tree_nodes for r in depth_rows), derived_nodes)
    _expect(
        report,
        "canonical positions by depth (depth table)",
        tuple(r.canonical_positions for r in depth_rows),
        tuple(canonical_by_depth[d] for d in depths if d <= last),
    )
    values: Counter[str] = Counter()
    for p in positions:
        values[p.value] += p.orbit
    values_canonical = Counter(p.value for p in positions)
    if game == TICTACTOE:
        _expect(report, "positions by depth (published)", derived_positions, figures.POSITIONS_BY_DEPTH)
        _expect(report, "tree nodes by depth (published)", derived_nodes, figures.TREE_NODES_BY_DEPTH)
        _expect(report, "values (published)", dict(values), figures.VALUES)
        _expect(report, "values of canonical positions (published)", dict(values_canonical), figures.VALUES_CANONICAL)

    playing = [p for p in positions if p.status == "playing"]
    decision = [p for p in playing if len(p.best_moves) < len(p.moves)]

    def every_image(chosen: list[Position]) -> list[int]:
        """Every board of the chosen classes in (depth, key) order, as the builder lists them."""
        return [key for _depth, key in sorted((p.depth, game.key(image)) for p in chosen for image in _images(p, game))]

    derived_lists = {
        "all": every_image(positions),
        "canonical": [game.key(p.board) for p in positions],
        "playing": every_image(playing),
        "playing_canonical": [game.key(p.board) for p in playing],
        "decision": every_image(decision),
        "decision_canonical": [game.key(p.board) for p in decision],
    }
    for name, derived in derived_lists.items():
        try:
            stored = db.node_list_keys(name)
        except DatabaseDamagedError as error:
            report.checks.append(f"node list {name}")
            report.problems.append(f"node list {name}: {error.what}")
            continue
        if game == TICTACTOE and name in figures.LIST_SIZES:
            _expect(report, f"node list {name} size (published)", len(stored), figures.LIST_SIZES[name])
        _expect(report, f"node list {name} matches its definition", stored == derived, True)

    stored_figures = db.meta().get("figures", {})
    derived_figures = {
        "tree_nodes": sum(nodes_by_depth.values()),
        "positions": sum(by_depth.values()),
        "canonical_positions": len(positions),
        "playing": len(derived_lists["playing"]),
        "playing_canonical": len(playing),
        "decision": len(derived_lists["decision"]),
        "decision_canonical": len(decision),
        "values": {value: values[value] for value in ("win", "loss", "draw")},
        "values_canonical": {value: values_canonical[value] for value in ("win", "loss", "draw")},
    }
    for key, value in derived_figures.items():
        _expect(report, f"meta figure {key}", stored_figures.get(key), value)

    paths = _expected_paths(positions, by_board, game)
    _check_rows(
        report,
        "paths",
        positions,
        lambda p: [] if p.paths == paths[p.board] else [f"paths {p.paths}, parents give {paths[p.board]}"],
    )
    _check_rows(report, "row against rules and children", positions, lambda p: _row_problems(p, by_board, game))
    _check_rows(report, "symmetric images agree", positions, lambda p: _symmetry_problems(p, game))
