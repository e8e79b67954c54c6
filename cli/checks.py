"""`ttt-db ais` and `ttt-db check`: list the AIs, and decide whether one is solved."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ttt_db.ais.limits import DEFAULT_IMPORT_SECONDS, DEFAULT_MEMORY_MB
from ttt_db.cli.common import chosen_game, open_db, read_policy_files
from ttt_db.cli.exits import EXIT_NO, EXIT_UNDECIDED, fail
from ttt_db.cli.options import (
    AI_HELP,
    DbOption,
    DigestOption,
    GameOption,
    ImportTimeoutOption,
    JsonOption,
    MemoryOption,
    QuietOption,
    TimeoutOption,
    max_boards_option,
    max_seconds_option,
)
from ttt_db.cli.progress import ProgressBar, progress_bar
from ttt_db.cli.render import PLIES_COUNTED, describe_moves, indented_diagram, plural
from ttt_db.cli.streams import ai_output_to_stderr, print_json, say_waiting, write_text_output
from ttt_db.errors import shortened
from ttt_db.game.definition import Game
from ttt_db.json_text import read_json

if TYPE_CHECKING:
    from ttt_db.checks.budget import CheckBudget
    from ttt_db.checks.policy_figures import PolicyMeasures
    from ttt_db.checks.report import CheckReport
    from ttt_db.checks.strong import StrongFailure, StrongResult
    from ttt_db.checks.weak import Counterexample, WeakSideResult
    from ttt_db.play.mistakes import Mistake
    from ttt_db.store.database import SolutionDatabase


def ais(game: GameOption = None, as_json: JsonOption = False) -> None:
    """The built-in AIs, one line each, and whether each plays the game. Any
    `package.module:function` works too."""
    game = chosen_game(game, None)
    from ttt_db.ais.registry import ais_document

    document = ais_document(game)
    if as_json:
        print_json(document)
        return
    width = max(len(ai["name"]) for ai in document)
    for ai in document:
        note = "" if ai["available"] else f"  (not for {game.name})"
        typer.echo(f"{ai['name']:<{width}}  {ai['summary']}{note}")
    typer.echo(f"{'module:function':<{width}}  your own: a callable from a board (o first) to the moves it might play")


def _after(moves: tuple[int, ...], game: Game) -> str:
    return f"after {describe_moves(moves, game)}" if moves else "at the empty board"


def _error_text(error: str, where: str | None) -> str:
    return error + (f" (at {where})" if where else "")


def _counterexample_lines(example: Counterexample, game: Game) -> list[str]:
    if example.error is not None:
        return [f"  the AI misbehaved {_after(example.moves, game)}:", f"  {_error_text(example.error, example.where)}"]
    return [
        f"  counterexample, {plural(len(example.moves), 'move')} from the empty board, the AI playing {example.side}:",
        f"  {describe_moves(example.moves, game)}",
        *indented_diagram(example.board, "  ", game),
    ]


def verdict(solved: bool | None) -> str:
    return {True: "solved", False: "NOT solved", None: "not decided"}[solved]


STOPPED_BY = {
    "max_boards": "--max-boards",
    "deadline": "--max-seconds",
    "cancelled": "a cancel",
}


def _weak_lines(result: WeakSideResult, game: Game) -> list[str]:
    if result.solved is None:
        assert result.stopped is not None
        short = "game short of a win" if result.target == "win" else "loss"
        return [
            f"weak, as {result.side}:  not decided (stopped by {STOPPED_BY[result.stopped]} after "
            f"{plural(result.visited, 'board')} examined, no {short} among them)"
        ]
    goal = {
        "draw": "",
        "win": f"{result.side} wins with best play, so every game must be won; ",
        "loss": f"{result.side} loses with best play: nothing to prove; ",
    }[result.target]
    lines = [f"weak, as {result.side}:  {verdict(result.solved)} ({goal}{plural(result.visited, 'board')} examined)"]
    if result.counterexample is not None:
        lines += _counterexample_lines(result.counterexample, game)
    return lines


def _mistake_lines(mistake: Mistake | None, game: Game) -> list[str]:
    if mistake is None:
        return []
    return [f"  its decisive mistake, {mistake.text}", *indented_diagram(mistake.board, "  ", game)]


def _failure_lines(failure: StrongFailure, game: Game) -> list[str]:
    return ["", f"  {failure.board}: {failure.text}", *indented_diagram(failure.board, "    ", game)]


def _strong_lines(result: StrongResult, show: int, symmetric: bool | None, game: Game) -> list[str]:
    target = "shortest best moves" if result.shortest else "best moves"
    positions = result.positions.replace("_", " ") + " positions"
    if result.complete:
        counted = f"{result.correct:,}/{result.total:,} {positions} play only {target}"
    else:
        assert result.stopped is not None and result.depth_reached is not None
        found = f"{plural(result.failing, 'failure')}" if result.failing else "no failure"
        reached = result.depth_reached
        part = f" and depth {reached} in part" if result.reached_in_part else ""
        counted = (
            f"stopped by {STOPPED_BY[result.stopped]} after {result.checked:,} of {result.total:,} {positions}: "
            f"depths 0-{reached - 1} in full{part}; {found} among them"
            if reached
            else f"stopped by {STOPPED_BY[result.stopped]} after {result.checked:,} of {result.total:,} {positions} "
            f"at depth 0; {found} among them"
        )
    lines = [f"strong:      {verdict(result.solved)} ({counted})"]
    if result.asked is not None and result.asked < result.checked:
        lines.append(
            f"  (asked once per symmetry class, at {plural(result.asked, 'canonical board')}: "
            "the AI treats symmetric boards alike)"
        )
    if result.positions == "decision_canonical":
        lines.append("  (canonical positions only: valid just for AIs that treat symmetric boards alike)")
        if symmetric is False:
            lines.append(
                "  warning: this AI does not treat symmetric boards alike, so the canonical result "
                "does not speak for every board"
            )
    if result.failing:
        from ttt_db.checks.strong import FAILURE_KINDS

        kinds = ", ".join(f"{count:,} {FAILURE_KINDS[kind]}" for kind, count in result.by_kind.items())
        lines.append(f"  {plural(result.failing, 'failing position')}: {kinds}")
        depths = ", ".join(f"{depth}: {sum(kinds.values()):,}" for depth, kinds in sorted(result.by_depth.items()))
        lines.append(f"  by depth (marks on the board): {depths}")
    shown = result.failures[:show]
    if shown:
        kept = " kept" if len(result.failures) < result.failing else ""
        more = "; --show N for more" if len(shown) < len(result.failures) else ""
        lines.append(f"  failures, shallowest first ({len(shown):,} of {len(result.failures):,}{kept}{more}):")
        lines.append(f"  (each move: its outcome for the mover, {PLIES_COUNTED})")
    for failure in shown:
        lines += _failure_lines(failure, game)
    return lines


def report_lines(report: CheckReport, show: int, symmetric: bool | None, game: Game) -> list[str]:
    lines = [f"{report.ai}: {verdict(report.solved)}"]
    if report.weak is not None:
        for side in (report.weak.o, report.weak.x):
            lines += _weak_lines(side, game)
            lines += _mistake_lines(report.mistakes.get(side.side), game)
    if report.strong is not None:
        lines += _strong_lines(report.strong, show, symmetric, game)
    return lines


WEAK_NOTICE_SECONDS = 10.0
"""A weak check still running after this long says how to bound it (its size is not known ahead:
it follows every game the AI's moves allow)."""


@contextmanager
def _check_progress(
    name: str, bounded: bool, quiet: bool
) -> Iterator[tuple[Callable[[int], None], Callable[[int, int], None]]]:
    """The weak check's progress (boards examined, no total) and the strong check's (boards
    asked of boards to ask), each on a bar of its own, started at its check's first report (its
    rate and time left are its own); an unbounded weak check that runs long says once how to
    bound it."""
    started = time.monotonic()
    told = bounded
    with ExitStack() as bars:
        examined: ProgressBar | None = None
        asked: ProgressBar | None = None

        def weak(done: int) -> None:
            nonlocal told, examined
            if examined is None:
                examined = bars.enter_context(progress_bar(None, "weak check: boards examined", "board", quiet=quiet))
            examined.update(done - examined.n)
            if not told and time.monotonic() - started >= WEAK_NOTICE_SECONDS:
                told = True
                typer.echo(
                    f"the weak check of {name} follows every game its moves allow ({done:,} boards so far, "
                    "no total known ahead); --max-boards or --max-seconds bound it",
                    err=True,
                )

        def strong(done: int, total: int) -> None:
            nonlocal asked
            if asked is None:
                asked = bars.enter_context(
                    progress_bar(total, "strong check: decision positions asked", "board", quiet=quiet)
                )
            asked.total = total
            asked.update(done - asked.n)

        yield weak, strong


def _budget(max_boards: int | None, max_seconds: float | None) -> CheckBudget:
    from ttt_db.checks.budget import CheckBudget

    return CheckBudget(max_boards=max_boards, seconds=max_seconds)


def _check_all(
    database: SolutionDatabase,
    weak: bool,
    strong: bool,
    canonical: bool,
    shortest: bool,
    as_json: bool,
    quiet: bool,
    bounds: tuple[int | None, float | None],
) -> bool | None:
    from ttt_db.ais.registry import playable_ais
    from ttt_db.checks.report import run_checks

    reports = []
    ais = playable_ais(database.game, lambda: database)
    with progress_bar(len(ais), "checking", "ai", quiet=quiet) as bar:
        for named in ais:
            reports.append(
                run_checks(
                    named,
                    database,
                    weak=weak,
                    strong=strong,
                    canonical=canonical,
                    shortest=shortest,
                    budget=_budget(*bounds),
                )
            )
            bar.update()
    decided = None if any(report.solved is None for report in reports) else True
    if as_json:
        print_json([report.to_document() for report in reports])
        return decided
    header = f"{'ai':<20}"
    header += f" {'weak as o':>10} {'weak as x':>10}" if weak else ""
    header += f" {'strong':>12}" if strong else ""
    typer.echo(header)
    for report in reports:
        row = f"{report.ai:<20}"
        if report.weak is not None:
            row += "".join(f" {_WEAK_CELL[side.solved]:>10}" for side in (report.weak.o, report.weak.x))
        if report.strong is not None:
            result = report.strong
            row += f" {result.correct:>6,}/{result.total:,}"
            row += "" if result.complete else f" (stopped after {result.checked:,})"
        typer.echo(row)
    timed = [named.name for named in ais if not named.deterministic]
    if timed:
        typer.echo(
            f"{' and '.join(timed)} {'answers' if len(timed) == 1 else 'answer'} by the clock: how deep "
            f"{'it searches' if len(timed) == 1 else 'they search'} follows the machine's speed and load, "
            "so a row can change from run to run"
        )
    return decided


_WEAK_CELL = {True: "solved", False: "LOSES", None: "undecided"}


def _refuse_conflicts(ai: str | None, all_ais: bool, weak: bool, strong: bool, canonical: bool, shortest: bool) -> None:
    if all_ais and ai is not None:
        raise fail(f"give an AI ({ai!r}) or --all, not both")
    if not all_ais and ai is None:
        raise fail("give an AI to check (see `ttt-db ais`), or --all for every built-in AI")
    strong_only = [flag for flag, given in (("--canonical", canonical), ("--shortest", shortest)) if given]
    if strong_only and weak and not strong:
        verb = "applies" if len(strong_only) == 1 else "apply"
        raise fail(f"{' and '.join(strong_only)} {verb} to the strong check, not to --weak")


def check(
    ai: Annotated[
        str | None,
        typer.Argument(
            metavar="AI",
            help=AI_HELP,
            show_default=False,
        ),
    ] = None,
    weak: Annotated[bool, typer.Option("--weak", help="From the empty board, does it never lose?")] = False,
    strong: Annotated[bool, typer.Option("--strong", help="Is it optimal at every decision position?")] = False,
    canonical: Annotated[
        bool, typer.Option("--canonical", help="Strong check over the canonical decision positions only (431 on 3x3).")
    ] = False,
    shortest: Annotated[
        bool,
        typer.Option("--shortest", help="Strong check against the shortest best moves (win fastest, lose slowest)."),
    ] = False,
    show: Annotated[int, typer.Option("--show", min=0, metavar="N", help="How many failing boards to draw.")] = 10,
    all_ais: Annotated[
        bool, typer.Option("--all", help="Every built-in AI in one table (exit 0, or 4 when one was stopped early).")
    ] = False,
    max_boards: Annotated[
        int | None,
        max_boards_option(
            "Stop after asking the AI at N boards (strong) or examining N (weak), in all, and say what was "
            "proven so far (exit 4 when that decides nothing)."
        ),
    ] = None,
    max_seconds: Annotated[
        float | None,
        max_seconds_option("Stop after S seconds and say what was proven so far (exit 4 when that decides nothing)."),
    ] = None,
    timeout: TimeoutOption = None,
    memory: MemoryOption = DEFAULT_MEMORY_MB,
    import_timeout: ImportTimeoutOption = DEFAULT_IMPORT_SECONDS,
    quiet: QuietOption = False,
    db: DbOption = None,
    digest: DigestOption = None,
    game: GameOption = None,
    as_json: JsonOption = False,
) -> None:
    """Is the AI solved? Weakly (never loses from the start, as o and as x) and strongly (plays
    only best moves at every decision position: 3,191 on 3x3). Both checks unless one is asked
    for. An AI that treats symmetric boards alike is asked once per symmetry class.

    A user AI (package.module:function or path/to/file.py:function) runs in a process of its
    own, held to --timeout and --memory: whatever it raises, loops on or allocates fails it at
    that board, and what it prints goes to stderr, so --json output stays one document. It is
    still run as you: only check code you trust.

    Counts are exact; failures are summarised by kind and depth, and the shallowest are kept
    with their boards. --max-boards and --max-seconds end a long check with what it proved so
    far. Exit 0 when every requested check passes, 1 when one fails, 2 for an unknown AI, 4
    when a check stopped early without deciding."""
    game = chosen_game(game, db)
    from ttt_db.ais.isolation import contained_ai
    from ttt_db.ais.limits import Limits
    from ttt_db.ais.registry import check_ai_name
    from ttt_db.checks.report import run_checks

    _refuse_conflicts(ai, all_ais, weak, strong, canonical, shortest)
    both = not weak and not strong
    if ai is not None:
        read_policy_files([ai], game, quiet=quiet)
        check_ai_name(ai, game)  # before a missing database is built
    with open_db(db, game, digest) as database:
        if all_ais:
            decided = _check_all(
                database, weak or both, strong or both, canonical, shortest, as_json, quiet, (max_boards, max_seconds)
            )
            if decided is None:
                raise typer.Exit(EXIT_UNDECIDED)
            return
        assert ai is not None
        limits = Limits(timeout, memory, import_timeout)
        with (
            ai_output_to_stderr(),
            contained_ai(ai, game, lambda: database, limits, waiting=say_waiting) as named,
            _check_progress(named.name, max_boards is not None or max_seconds is not None, quiet) as (
                weak_progress,
                strong_progress,
            ),
        ):
            report = run_checks(
                named,
                database,
                weak=weak or both,
                strong=strong or both,
                canonical=canonical,
                shortest=shortest,
                progress=strong_progress,
                weak_progress=weak_progress,
                notice=lambda line: typer.echo(line, err=True),
                budget=_budget(max_boards, max_seconds),
            )
    if as_json:
        print_json(report.to_document())
    else:
        typer.echo("\n".join(report_lines(report, show, named.symmetric, game)))
    if report.solved is None:
        raise typer.Exit(EXIT_UNDECIDED)
    if not report.solved:
        raise typer.Exit(EXIT_NO)


def score(
    ai: Annotated[
        str,
        typer.Argument(
            metavar="AI",
            help=AI_HELP,
            show_default=False,
        ),
    ],
    show: Annotated[
        int, typer.Option("--show", min=0, metavar="N", help="How many of the costliest positions to list per seat.")
    ] = 5,
    against: Annotated[
        list[str] | None,
        typer.Option(
            "--against",
            metavar="AI",
            help="Also its outcomes against this AI, exactly (repeatable): perfect@0.9, perfect@0.5, ... as a ladder.",
            show_default=False,
        ),
    ] = None,
    best_response: Annotated[
        bool,
        typer.Option(
            "--best-response/--no-best-response",
            help="Measure it against a best response (its worst case), and from that its NashConv and "
            "exploitability; --no-best-response leaves them out, and on a game measured over the core the "
            "passes over it that they take.",
        ),
    ] = True,
    max_boards: Annotated[
        int | None, max_boards_option("Ask the AI at N positions at most; the figures are then bounds (exit 4).")
    ] = None,
    max_seconds: Annotated[
        float | None,
        max_seconds_option("Ask the AI for S seconds at most; the figures are then bounds (exit 4)."),
    ] = None,
    timeout: TimeoutOption = None,
    memory: MemoryOption = DEFAULT_MEMORY_MB,
    import_timeout: ImportTimeoutOption = DEFAULT_IMPORT_SECONDS,
    db: DbOption = None,
    digest: DigestOption = None,
    game: GameOption = None,
    as_json: JsonOption = False,
) -> None:
    """How good is the AI, exactly? Its win, draw and loss probabilities from the empty board, as o
    and as x, against the perfect player (uniform among best moves), a best response (its worst
    case), uniform random play and each --against AI; its NashConv and exploitability in
    OpenSpiel's units; and the positions where it loses its points against perfect play (how
    likely each is reached, what it gives up there).

    An AI that answers a collection of moves plays each with the same probability; one that
    answers {move: probability} (or (move, probability) pairs) plays them as given. Every figure
    is exact, over the positions its play reaches (games of at most 12 cells). The database's own
    AIs (perfect, perfect-shortest, their @P grades) and ai2s are measured over the ranked core
    instead, never asked, on every game up to 20 cells (over 12 cells in floating point), against
    --against AIs of the same kinds, and so is a policy file (policy.json: boards and their move
    probabilities, uniformly random elsewhere) that is symmetric; any other AI is measured on such a game only within
    --max-boards or --max-seconds. A user AI runs in a process of its own, as for `check`. With
    --max-boards or --max-seconds it is asked no more once they are spent, and every figure is what
    it is sure of (each position it was not asked at played as badly as it could be), with the
    best case beside it. Exit 0, 4 when stopped early, or
    2 for an unknown AI or a misbehaving one."""
    game = chosen_game(game, db)
    from ttt_db.ais.isolation import contained_ai
    from ttt_db.ais.limits import Limits
    from ttt_db.ais.registry import named_core_policy
    from ttt_db.checks.core_measures import over_core_passes
    from ttt_db.checks.measures import measure_policy, measured_over_core, refuse_unmeasurable

    names = (ai, *(against or ()))
    read_policy_files(names, game)
    policies = [named_core_policy(name, game) for name in names]
    bounded = max_boards is not None or max_seconds is not None
    refuse_unmeasurable(game, list(zip(names, policies, strict=True)), bounded=bounded)  # before a build
    over_core = measured_over_core(policies)  # nothing asked: every position measured
    limits = Limits(timeout, memory, import_timeout)
    with open_db(db, game, digest) as database, ai_output_to_stderr(), ExitStack() as opened:
        named, *opponents = (
            opened.enter_context(contained_ai(name, game, lambda: database, limits, waiting=say_waiting))
            for name in names
        )
        positions = int(database.meta()["figures"]["positions"])
        with progress_bar(
            over_core_passes(database, opponents, best_response) * positions if over_core else max_boards,
            "score: positions met, backward then forward" if over_core else "score: positions asked",
            "position",
            quiet=False,
        ) as asked:
            measures = measure_policy(
                named,
                database,
                costliest=show,
                against=opponents,
                progress=lambda count: asked.update(count - asked.n),
                budget=_budget(max_boards, max_seconds),
                best_response=best_response,
            )
    if as_json:
        print_json(measures.to_document())
    else:
        typer.echo("\n".join(score_lines(measures)))
    if measures.stopped is not None:
        raise typer.Exit(EXIT_UNDECIDED)


def score_lines(measures: PolicyMeasures) -> list[str]:
    """`ttt-db score` as text: per seat the outcomes against each opponent and the costliest
    positions; then NashConv and exploitability."""
    from ttt_db.checks.policy_figures import OUTCOME_WORDS, opponent_label

    game = measures.game
    if measures.over_core:
        how = "exact" if measures.exact else "in floating point (float64)"
        lines = [f"{measures.ai} on {game.name}: {how}, over the ranked core's {plural(measures.asked, 'position')}"]
    elif measures.stopped is None:
        lines = [f"{measures.ai} on {game.name}: exact, over the {plural(measures.asked, 'position')} its play reaches"]
    else:
        lines = [
            f"{measures.ai} on {game.name}: stopped by {STOPPED_BY[measures.stopped]} after "
            f"{plural(measures.asked, 'position')} asked: each figure is what it is sure of (every position "
            "not asked played as badly as it could be); the expected score's best case follows it"
        ]
    if measures.uniform_answers:
        lines.append(
            f"at {plural(measures.uniform_answers, 'position')} it answered several moves: each is taken as "
            "played with the same probability (answer {move: probability} to give others)"
        )
    for seat in measures.seats.values():
        best = {1: "a win", 0: "a draw", -1: "a loss"}[seat.value]
        lines.append(f"as {seat.seat} (the start is {best} for {seat.seat} with best play):")
        for name, outcome in seat.against.items():
            against = f"{opponent_label(name)}:"
            upper = measures.best_case
            best_case = "" if upper is None else f" to {float(upper[seat.seat][name].score):+.4f}"
            lines.append(
                f"  against {against:<17} win {float(outcome.win):7.2%}, draw {float(outcome.draw):7.2%}, "
                f"loss {float(outcome.loss):7.2%}; expected score {float(outcome.score):+.4f}{best_case}"
            )
        if not seat.lost:
            lines.append("  it loses nothing against perfect play")
            continue
        depths = ", ".join(f"{depth}: {float(lost):.4f}" for depth, lost in sorted(seat.lost_by_depth.items()))
        exact = measures.stopped is None
        where = (f"; by moves made, {depths}" if exact else f"; at the positions asked, {depths}") if depths else ""
        lost = f"{'' if exact else 'at most '}{float(seat.lost):.4f}"
        lines.append(f"  expected score lost against perfect play: {lost}{where}")
        if seat.costliest:
            lines.append(
                "  costliest positions (how often it reaches each, the score it gives up there, their product; "
                "each move: probability, outcome for the mover):"
            )
        for cost in seat.costliest:
            moves = ", ".join(
                f"{game.move_name(move)} {float(p):.1%} {OUTCOME_WORDS[value]}" for move, p, value in cost.moves
            )
            lines.append(
                f"    {cost.board}  reached in {float(cost.reach):.2%} of games, gives up {float(cost.lost):.3f} "
                f"there, costs {float(cost.share):.4g}: {moves}"
            )
    if not measures.best_response:
        lines.append("no best response measured (--no-best-response): no NashConv or exploitability")
        return lines
    least, most = measures.nash_conv_bounds
    figures = (
        f"NashConv {float(most):.6g}, exploitability {float(most / 2):.6g}"
        if least == most
        else f"NashConv between {float(least):.6g} and {float(most):.6g}, exploitability between "
        f"{float(least / 2):.6g} and {float(most / 2):.6g}"
    )
    units = "OpenSpiel's units: what best responses gain over the AI's self-play, a win +1, a loss -1"
    lines.append(f"{figures} ({units})")
    return lines


def suite(
    count: Annotated[int, typer.Option("-n", "--count", min=0, metavar="N", help="Positions in the suite.")] = 100,
    seed: Annotated[int | None, typer.Option("--seed", metavar="S", help="Seed for a reproducible suite.")] = None,
    tier: Annotated[
        list[str] | None,
        typer.Option(
            "--tier",
            metavar="TIER",
            help="Draw from this difficulty only (repeatable): hard (one move keeps the value), medium (two), "
            "easy (more).",
            show_default=False,
        ),
    ] = None,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write to this file instead of stdout.", dir_okay=False)
    ] = None,
    game: GameOption = None,
    db: DbOption = None,
    digest: DigestOption = None,
    as_json: JsonOption = False,
) -> None:
    """A benchmark suite for agents and LLMs: N decision positions drawn evenly from the difficulty
    tiers, one JSON document a line (--json: one document, the list of them), each with every move's
    exact value, plies left and whether it keeps the position's value. `ttt-db judge` scores answers
    to it."""
    game = chosen_game(game, db)
    import json

    from ttt_db.checks.suite import TIERS, draw_suite

    with open_db(db, game, digest) as database, progress_bar(game.cells, "suite", "level", quiet=False) as bar:
        items = draw_suite(database, count, seed=seed, tiers=tier or TIERS, progress=lambda done, _: bar.update(1))
    text = json.dumps(items) + "\n" if as_json else "".join(json.dumps(item) + "\n" for item in items)
    write_text_output(text, output, f"{len(items):,} positions")


def judge(
    answers: Annotated[
        str,
        typer.Argument(
            metavar="FILE",
            help='Answers, one JSON record a line: {"board": ..., "move": cell} (and "id", "first"); - for stdin.',
            show_default=False,
        ),
    ],
    game: GameOption = None,
    db: DbOption = None,
    digest: DigestOption = None,
    as_json: JsonOption = False,
) -> None:
    """Score (board, move) answers, an agent's or an LLM's to a suite or any boards: did each move keep
    the position's value, and if not how much it gave up (a value step, or plies of a slower win or
    faster loss); a summary in all and by difficulty tier. A line that cannot be judged is reported
    and the rest are judged."""
    game = chosen_game(game, db)

    from ttt_db.checks.suite import Verdict, judge_answers, summary

    try:
        lines = sys.stdin.read().splitlines() if answers == "-" else Path(answers).read_text("utf-8").splitlines()
    except OSError as error:
        raise fail(f"cannot read {answers}: {error.strerror}") from None
    records: list[dict[str, Any]] = []
    numbers: list[int] = []  # each record's line in the file
    unread: list[dict[str, Any]] = []
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            record = read_json(raw)
        except ValueError as error:
            unread.append({"input": shortened(raw), "error": f"not a JSON record: {error}", "line": number})
            continue
        if not isinstance(record, dict):
            unread.append({"input": shortened(raw), "error": "not a JSON record (an object)", "line": number})
            continue
        records.append(record)
        numbers.append(number)
    with open_db(db, game, digest) as database:
        results = list(judge_answers(database, records))
    verdicts = [result for result in results if isinstance(result, Verdict)]
    judged_errors = [
        result | {"line": number}
        for result, number in zip(results, numbers, strict=True)
        if not isinstance(result, Verdict)
    ]
    errors = sorted(unread + judged_errors, key=lambda error: int(error["line"]))
    totals = summary(verdicts)
    if as_json:
        print_json({"summary": totals, "verdicts": [v.to_document() for v in verdicts], "errors": errors})
        return
    typer.echo(f"{len(verdicts):,} answers judged" + (f", {len(errors):,} could not be" if errors else ""))
    typer.echo(f"{'':<8}{'answers':>9}{'kept':>9}{'share':>9}{'value lost':>12}{'plies lost':>12}")
    for key, row in totals.items():
        typer.echo(
            f"{key:<8}{row['answers']:>9,}{row['kept']:>9,}{row['share_kept']:>9.1%}"
            f"{row['value_lost']:>12,}{row['plies_lost']:>12,}"
        )
    for problem in errors[:JUDGE_ERRORS_SHOWN]:
        typer.echo(f"  not judged, line {problem['line']}: {problem['error']}", err=True)
    if len(errors) > JUDGE_ERRORS_SHOWN:
        typer.echo(f"  and {len(errors) - JUDGE_ERRORS_SHOWN:,} more not judged (--json lists every one)", err=True)


JUDGE_ERRORS_SHOWN = 5
"""Lines `judge` could not judge that its text names (--json lists them all)."""


def register(app: typer.Typer) -> None:
    app.command()(ais)
    app.command()(check)
    app.command()(score)
    app.command()(suite)
    app.command()(judge)
