"""`ttt-db ais` and `ttt-db check`: list the AIs, and decide whether one is solved."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated

import typer

from cli.common import (
    EXIT_NO,
    DbOption,
    GameOption,
    JsonOption,
    MemoryOption,
    QuietOption,
    TimeoutOption,
    ai_output_to_stderr,
    fail,
    open_db,
    print_json,
    progress_bar,
)
from cli.render import describe_analyses, describe_move, describe_moves, indented_diagram, plural
from ttt_db.ais.limits import DEFAULT_MEMORY_MB
from ttt_db.game.definition import DEFAULT_GAME, Game
from ttt_db.game.rules import side_to_move

if TYPE_CHECKING:
    from ttt_db.ais.registry import NamedAI
    from ttt_db.checks.report import CheckReport, Mistake
    from ttt_db.checks.solved import Counterexample, StrongFailure, StrongResult, WeakSideResult
    from ttt_db.store.database import SolutionDatabase


def ais(game: GameOption = DEFAULT_GAME, as_json: JsonOption = False) -> None:
    """The built-in AIs, one line each, and whether each plays the game. Any
    `package.module:function` works too."""
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


def _weak_lines(result: WeakSideResult, game: Game) -> list[str]:
    verdict = "solved" if result.solved else "NOT solved"
    goal = {
        "draw": "",
        "win": f"{result.side} wins with best play, so every game must be won; ",
        "loss": f"{result.side} loses with best play: nothing to prove; ",
    }[result.target]
    lines = [f"weak, as {result.side}:  {verdict} ({goal}{plural(result.visited, 'board')} examined)"]
    if result.counterexample is not None:
        lines += _counterexample_lines(result.counterexample, game)
    return lines


def _mistake_lines(mistake: Mistake | None, side: str, game: Game) -> list[str]:
    if mistake is None:
        return []
    chosen = mistake.analyses([mistake.move])
    chosen_text = describe_analyses(chosen) if chosen else describe_move(mistake.move, game)
    held = mistake.analyses(mistake.held)
    return [
        f"  its decisive mistake, move {mistake.ply + 1}: {side} could still {_VERB[mistake.value_before]} "
        f"here; it may play {chosen_text}, after which {side} {_OUTCOME[mistake.value_after]}",
        f"  moves that would have held: {describe_analyses(held) if held else describe_moves(mistake.held, game)}",
        *indented_diagram(mistake.board, "  ", game),
    ]


_VERB = {"win": "win", "draw": "draw", "loss": "lose"}
_OUTCOME = {"win": "wins", "draw": "can only draw", "loss": "loses"}


def _failure_lines(failure: StrongFailure, game: Game) -> list[str]:
    lines = ["", f"  {failure.board} ({side_to_move(failure.board)} to move)"]
    if failure.error is not None:
        lines.append(f"    {_error_text(failure.error, failure.where)}")
    else:
        wrong = failure.analyses(failure.wrong)
        lines.append(f"    may play {describe_analyses(wrong) if wrong else describe_moves(failure.wrong, game)}")
    best = failure.analyses(failure.best)
    lines.append(f"    best: {describe_analyses(best) if best else describe_moves(failure.best, game)}")
    return lines + indented_diagram(failure.board, "    ", game)


def _strong_lines(result: StrongResult, show: int, symmetric: bool | None, game: Game) -> list[str]:
    verdict = "solved" if result.solved else "NOT solved"
    target = "shortest best moves" if result.shortest else "best moves"
    lines = [
        f"strong:      {verdict} ({result.correct:,}/{plural(result.total, result.positions + ' position')} "
        f"play only {target})"
    ]
    if result.asked is not None and result.asked < result.total:
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
    shown = result.failures[:show]
    if shown:
        more = "; --show N for more" if len(shown) < len(result.failures) else ""
        lines.append(f"  failures, shallowest first ({len(shown):,} of {len(result.failures):,}{more}):")
        lines.append("  (each move: its value for the mover, plies counted from the board)")
    for failure in shown:
        lines += _failure_lines(failure, game)
    return lines


def report_lines(report: CheckReport, show: int, symmetric: bool | None, game: Game = DEFAULT_GAME) -> list[str]:
    lines = [f"{report.ai}: {'solved' if report.solved else 'NOT solved'}"]
    if report.weak is not None:
        for side in (report.weak.o, report.weak.x):
            lines += _weak_lines(side, game)
            lines += _mistake_lines(report.mistakes.get(side.side), side.side, game)
    if report.strong is not None:
        lines += _strong_lines(report.strong, show, symmetric, game)
    return lines


@contextmanager
def _counting_calls(named: NamedAI, quiet: bool) -> Iterator[NamedAI]:
    """The AI with each call counted on a progress bar (seen only when a slow AI makes the
    checks take longer than a second)."""
    from ttt_db.ais.calling import counting

    with progress_bar(None, f"asking {named.name}", "board", quiet=quiet) as bar:
        yield replace(named, play=counting(named.play, bar.update))


def _check_all(
    database: SolutionDatabase, weak: bool, strong: bool, canonical: bool, shortest: bool, as_json: bool, quiet: bool
) -> None:
    from ttt_db.ais.registry import DEFAULT_INSTANCES, load_ai
    from ttt_db.checks.report import run_checks
    from ttt_db.errors import UnknownAIError

    reports = []
    with progress_bar(len(DEFAULT_INSTANCES), "checking", "ai", quiet=quiet) as bar:
        for name in DEFAULT_INSTANCES:
            try:
                named = load_ai(name, lambda: database, database.game)
            except UnknownAIError:  # ai14s, on games other than 3x3k3
                bar.update()
                continue
            reports.append(
                run_checks(named, database, weak=weak, strong=strong, canonical=canonical, shortest=shortest)
            )
            bar.update()
    if as_json:
        print_json([report.to_document() for report in reports])
        return
    header = f"{'ai':<20}"
    header += f" {'weak as o':>10} {'weak as x':>10}" if weak else ""
    header += f" {'strong':>12}" if strong else ""
    typer.echo(header)
    for report in reports:
        row = f"{report.ai:<20}"
        if report.weak is not None:
            row += "".join(f" {'solved' if side.solved else 'LOSES':>10}" for side in (report.weak.o, report.weak.x))
        if report.strong is not None:
            row += f" {report.strong.correct:>6,}/{report.strong.total:,}"
        typer.echo(row)


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
            metavar="AI", help="A built-in AI (see `ttt-db ais`) or package.module:function.", show_default=False
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
    all_ais: Annotated[bool, typer.Option("--all", help="Every built-in AI in one table (exit 0).")] = False,
    timeout: TimeoutOption = None,
    memory: MemoryOption = DEFAULT_MEMORY_MB,
    quiet: QuietOption = False,
    db: DbOption = None,
    game: GameOption = DEFAULT_GAME,
    as_json: JsonOption = False,
) -> None:
    """Is the AI solved? Weakly (never loses from the start, as o and as x) and strongly (plays
    only best moves at every decision position: 3,191 on 3x3). Both checks unless one is asked
    for. An AI that treats symmetric boards alike is asked once per symmetry class.

    A user AI (package.module:function or path/to/file.py:function) runs in a process of its
    own, held to --timeout and --memory: whatever it raises, loops on or allocates fails it at
    that board, and what it prints goes to stderr, so --json output stays one document. It is
    still run as you: only check code you trust.
    Exit 0 when every requested check passes, 1 when one fails, 2 for an unknown AI."""
    from ttt_db.ais.isolation import contained_ai
    from ttt_db.ais.limits import Limits
    from ttt_db.checks.report import run_checks

    _refuse_conflicts(ai, all_ais, weak, strong, canonical, shortest)
    both = not weak and not strong
    with open_db(db, game) as database:
        if all_ais:
            _check_all(database, weak or both, strong or both, canonical, shortest, as_json, quiet)
            return
        assert ai is not None
        limits = Limits(timeout, memory)
        with (
            ai_output_to_stderr(),
            contained_ai(ai, lambda: database, game, limits) as named,
            _counting_calls(named, quiet) as counted,
            progress_bar(None, "decision positions", "board", quiet=quiet) as checked,
        ):

            def progress(done: int, total: int) -> None:
                checked.total = total
                checked.update(done - checked.n)

            report = run_checks(
                counted,
                database,
                weak=weak or both,
                strong=strong or both,
                canonical=canonical,
                shortest=shortest,
                progress=progress,
                notice=lambda line: typer.echo(line, err=True),
            )
    if as_json:
        print_json(report.to_document())
    else:
        typer.echo("\n".join(report_lines(report, show, named.symmetric, game)))
    if not report.solved:
        raise typer.Exit(EXIT_NO)


def register(app: typer.Typer) -> None:
    app.command()(ais)
    app.command()(check)
