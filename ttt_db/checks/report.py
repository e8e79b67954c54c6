"""An AI's check report against an open database (`run_checks`): the strong check
(`ttt_db.checks.strong`) and the weak one (`ttt_db.checks.weak`), and the decisive mistake on each
counterexample."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ttt_db.ais.protocol import NamedAI
from ttt_db.checks.budget import CheckBudget
from ttt_db.checks.strong import StrongFailure, StrongResult
from ttt_db.checks.weak import Counterexample, WeakResult, both_solved, check_weak
from ttt_db.game.definition import Game
from ttt_db.game.rules import Value, replay
from ttt_db.store.database import SolutionDatabase

if TYPE_CHECKING:
    from ttt_db.play.mistakes import Mistake


@dataclass(frozen=True, slots=True)
class CheckReport:
    ai: str
    game: Game
    weak: WeakResult | None
    strong: StrongResult | None
    mistakes: dict[str, Mistake]  # side -> where that side's weak counterexample went wrong

    @property
    def solved(self) -> bool | None:
        """True when every check passed in full, False when one failed, None when a check stopped
        early (its budget ran out) without a failure: not decided."""
        return both_solved(*(result.solved for result in (self.weak, self.strong) if result is not None))

    def _repr_html_(self) -> str:
        """The report in a notebook: the verdict, each check's result, each weak counterexample's
        decisive mistake and the shallowest strong failures drawn as boards."""
        from html import escape  # a notebook's drawing, loaded there alone

        from ttt_db.game.drawing import table, value_text

        verdict = {True: "solved", False: "not solved", None: "not decided (a check stopped early)"}[self.solved]
        rows: list[tuple[str, str]] = []
        if self.weak is not None:
            for side in (self.weak.o, self.weak.x):
                said = {True: "never does worse than", False: "can end below", None: "not decided for"}[side.solved]
                moves = ""
                if side.counterexample is not None:
                    names = " ".join(self.game.move_name(move) for move in side.counterexample.moves)
                    moves = f" (lost game: {escape(names)})"
                rows.append((f"weak, as {side.side}", f"{said} {value_text(side.target, side.side)}{moves}"))
        if self.strong is not None:
            strong = self.strong
            kinds = ", ".join(f"{count:,} {kind.replace('_', ' ')}" for kind, count in strong.by_kind.items() if count)
            rows.append(
                (
                    "strong",
                    f"{strong.correct:,} of {strong.checked:,} decision positions answered with best moves only"
                    + (f" ({kinds})" if kinds else ""),
                )
            )
        figures = [_mistake_figure(mistake, self.game) for mistake in self.mistakes.values()]
        if self.strong is not None:
            figures += [_failure_figure(failure, self.game) for failure in self.strong.failures[:3]]
        head = f"<p><b>{escape(self.ai)}</b> on {self.game.name}: <b>{verdict}</b></p>"
        return f"<div>{head}{table(rows)}{''.join(figures)}</div>"

    def to_document(self, failures_from: int = 0, failures_limit: int | None = None) -> dict[str, Any]:
        """What `ttt-db check --json` prints and `/api/check` sends (docs/json.md): the strong
        check's failures from `failures_from`, at most `failures_limit` of them (all by default),
        with `failures_total`; each weak side with the decisive mistake on its counterexample."""
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
            strong["failures_total"] = len(self.strong.failures)  # kept; `failing` counts them all
        return document


def _mistake_figure(mistake: Mistake, game: Game) -> str:
    from html import escape

    from ttt_db.game.drawing import board_svg, figure

    svg = board_svg(
        mistake.board,
        game,
        values={move.move: move.value for move in mistake.moves},
        notes={move.move: move.outcome for move in mistake.moves},
        rings={mistake.move: "loss", **dict.fromkeys(mistake.held, "win")},
        title=f"the decisive mistake as {mistake.side}",
    )
    return figure(svg, escape(f"As {mistake.side}, {mistake.text}."))


def _failure_figure(failure: StrongFailure, game: Game) -> str:
    from html import escape

    from ttt_db.game.drawing import board_svg, figure

    svg = board_svg(
        failure.board,
        game,
        values={move.move: move.value for move in failure.moves},
        notes={move.move: move.outcome for move in failure.moves},
        rings={**dict.fromkeys(failure.best, "win"), **dict.fromkeys(failure.wrong, "loss")},
        title=f"a strong failure at {failure.board}",
    )
    return figure(svg, escape(f"At {failure.board}, {failure.text}."))


def decisive_mistake(counterexample: Counterexample, target: Value, database: SolutionDatabase) -> Mistake | None:
    """The AI's move in `counterexample` that threw away `target` (`first_mistake`); None when the
    counterexample is an AI's failure to answer rather than a game."""
    if counterexample.error is not None:
        return None
    from ttt_db.play.mistakes import first_mistake  # loaded only for a weak check that failed

    positions = database.stored_positions(replay(counterexample.moves, database.game))
    return first_mistake(positions, counterexample.moves, counterexample.side, target)


def run_checks(
    ai: NamedAI,
    database: SolutionDatabase,
    *,
    weak: bool = True,
    strong: bool = True,
    canonical: bool = False,
    shortest: bool = False,
    progress: Callable[[int, int], None] | None = None,
    weak_progress: Callable[[int], None] | None = None,
    notice: Callable[[str], None] | None = None,
    budget: CheckBudget | None = None,
) -> CheckReport:
    """The requested checks on the database's game. The strong one holds the AI to the best moves
    at every decision position (or only the canonical ones), level by level over the core
    (`check_strong_over_core`: it reports `progress(done, total)` and tells `notice` what asking a
    board-by-board AI will take); an AI that treats symmetric boards alike is asked once per
    symmetry class, its answer speaking for the images. The weak one is the depth-first search
    (`check_weak`, reporting `weak_progress(boards examined)`), or for the database's own AIs the
    same boards reached in arrays (not where the database reads its plain rows: there they answer
    from the rows, and the search is quicker than the interpreted walk). Both spend one `budget`
    (unbounded by default): a check it stops answers with what it proved (`solved` None when that
    decides nothing).

    >>> from ttt_db import load_ai, open_database
    >>> with open_database() as database:
    ...     report = run_checks(load_ai("ai14s"), database)
    >>> report.solved, report.weak.solved, report.strong.by_kind
    (False, True, {'win_to_loss': 4, 'win_to_draw': 32, 'draw_to_loss': 16})
    """
    game = database.game
    budget = budget or CheckBudget()
    budget.start()
    weak_result = None
    if weak and ai.core_answer is not None and not database.reads_plain_rows:
        from ttt_db.checks.weak import check_weak_over_core

        weak_result = check_weak_over_core(ai, database, budget)
    if weak and weak_result is None:
        weak_result = check_weak(ai.play, game, database.empty_board_value, budget=budget, progress=weak_progress)
    strong_result = None
    if strong:
        from ttt_db.checks.strong import check_strong_over_core

        strong_result = check_strong_over_core(
            ai, database, canonical=canonical, shortest=shortest, progress=progress, notice=notice, budget=budget
        )
    mistakes: dict[str, Mistake] = {}
    if weak_result is not None and weak_result.solved is False:
        for side in (weak_result.o, weak_result.x):
            found = side.counterexample and decisive_mistake(side.counterexample, side.target, database)
            if found:
                mistakes[side.side] = found
    return CheckReport(ai.name, game, weak_result, strong_result, mistakes)
