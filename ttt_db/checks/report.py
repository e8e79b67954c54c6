"""An AI's check report against an open database (`run_checks`): the stored lists and best
moves fed to the pure checks of `ttt_db.checks.solved`, and the first mistake on each counterexample."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from ttt_db.ais.registry import NamedAI
from ttt_db.checks.solved import (
    Counterexample,
    StrongResult,
    WeakResult,
    check_strong,
    check_strong_by_orbit,
    check_weak,
    replay,
)
from ttt_db.game.definition import TICTACTOE, Game
from ttt_db.game.rules import mover_at, side_to_move
from ttt_db.store.database import SolutionDatabase
from ttt_db.store.position import MoveAnalysis, analyses_of


@dataclass(frozen=True, slots=True)
class Mistake:
    """The first move of a counterexample where the AI left the best moves."""

    ply: int  # moves made before it
    board: str
    move: int
    best: tuple[int, ...]
    moves: tuple[MoveAnalysis, ...] = ()  # every legal move's value there, from the database

    def analyses(self, moves: Iterable[int]) -> list[MoveAnalysis]:
        return analyses_of(self.moves, moves)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ply": self.ply,
            "board": self.board,
            "to_move": side_to_move(self.board),
            "move": self.move,
            "best": list(self.best),
            "move_values": [analysis.to_dict() for analysis in self.moves],
        }


@dataclass(frozen=True, slots=True)
class CheckReport:
    ai: str
    game: Game
    weak: WeakResult | None
    strong: StrongResult | None
    mistakes: dict[str, Mistake]  # side -> where that side's weak counterexample went wrong

    @property
    def solved(self) -> bool:
        return all(result.solved for result in (self.weak, self.strong) if result is not None)

    def to_document(self, failures_from: int = 0, failures_limit: int | None = None) -> dict[str, Any]:
        """What `ttt-db check --json` prints and `/api/check` sends (docs/json.md): the strong
        check's failures from `failures_from`, at most `failures_limit` of them (all by default),
        with `failures_total`; each weak side with the first mistake on its counterexample."""
        document: dict[str, Any] = {"ai": self.ai, "game": self.game.name, "solved": self.solved}
        if self.weak is not None:
            weak = document["weak"] = self.weak.to_dict()
            for side in ("o", "x"):
                mistake = self.mistakes.get(side)
                weak[side]["mistake"] = None if mistake is None else mistake.to_dict()
        if self.strong is not None:
            strong = document["strong"] = self.strong.to_dict()
            end = None if failures_limit is None else failures_from + failures_limit
            strong["failures"] = strong["failures"][failures_from:end]
            strong["failures_from"] = failures_from
            strong["failures_total"] = len(self.strong.failures)
        return document


def first_mistake(
    counterexample: Counterexample, best_moves: Mapping[str, tuple[int, ...]], game: Game = TICTACTOE
) -> Mistake | None:
    """The first AI move in the counterexample that is not among the stored best moves."""
    boards = replay(counterexample.moves, game)
    for ply, move in enumerate(counterexample.moves):
        if mover_at(ply) == counterexample.side and move not in best_moves[boards[ply]]:
            return Mistake(ply, boards[ply], move, best_moves[boards[ply]])
    return None


def run_checks(
    ai: NamedAI,
    db: SolutionDatabase,
    *,
    weak: bool = True,
    strong: bool = True,
    canonical: bool = False,
    shortest: bool = False,
) -> CheckReport:
    """The requested checks on the database's game; the strong one holds the AI to the stored
    best moves at every board of the stored `decision` (or `decision_canonical`) list. An AI that
    treats symmetric boards alike is asked once per symmetry class, its answer speaking for the
    images (`check_strong_by_orbit`: the same result, up to 8 times fewer questions)."""
    game = db.game
    best_moves = db.best_moves_table(shortest=shortest)
    strong_result = None
    if strong and (canonical or not ai.one_answer_per_orbit):
        list_name = "decision_canonical" if canonical else "decision"
        strong_result = check_strong(
            ai.play,
            db.node_list(list_name),
            best_moves,
            positions=list_name,
            shortest=shortest,
        )
    elif strong:
        strong_result = check_strong_by_orbit(
            ai.play,
            db.node_list("decision_canonical"),
            best_moves,
            game,
            total=db.meta()["figures"]["decision"],
            shortest=shortest,
        )
    if strong_result is not None:
        failing = db.stored_positions(failure.board for failure in strong_result.failures)
        strong_result.failures = [
            replace(failure, moves=position.moves)
            for failure, position in zip(strong_result.failures, failing, strict=True)
        ]
    weak_result = check_weak(ai.play, game, db.empty_board_value) if weak else None
    mistakes: dict[str, Mistake] = {}
    if weak_result is not None and not weak_result.solved:
        plain_best = best_moves if not shortest else db.best_moves_table()
        for side in (weak_result.o, weak_result.x):
            found = side.counterexample and first_mistake(side.counterexample, plain_best, game)
            if found:
                mistakes[side.side] = replace(found, moves=db.stored_positions([found.board])[0].moves)
    return CheckReport(ai.name, game, weak_result, strong_result, mistakes)
