"""`ttt-db ais` and `ttt-db check`: list the AIs, and decide whether one is solved."""

from __future__ import annotations

import sys
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated

import typer

from cli.common import EXIT_NO, DbOption, JsonOption, fail, handle_errors, open_db, print_json
from ttt_db.board import describe_moves, diagram

if TYPE_CHECKING:
    from ttt_db.ais import NamedAI
    from ttt_db.checks import StrongResult, WeakSideResult
    from ttt_db.database import SolutionDatabase
    from ttt_db.solve_check import CheckReport, Mistake



@handle_errors
def ais(as_json: JsonOption = False) -> None:
    """The built-in AIs, one line each. Any `package.module:function` works too."""
    from ttt_db.ais import BUILTIN_AIS

    if as_json:
        print_json([{"name": ai.name, "summary": ai.summary, "symmetric": ai.symmetric} for ai in BUILTIN_AIS])
        return
    width = max(len(ai.name) for ai in BUILTIN_AIS)
    for ai in BUILTIN_AIS:
        typer.echo(f"{ai.name:<{width}}  {ai.summary}")
    typer.echo(f"{'module:function':<{width}}  your own: a callable from a board (o first) to the moves it might play")


def _drawn(board: str, indent: str) -> list[str]:
    return [indent + line for line in diagram(board).splitlines()]


def _weak_lines(result: WeakSideResult) -> list[str]:
    verdict = "solved" if result.solved else "NOT solved"
    lines = [f"weak, as {result.side}:  {verdict} ({result.visited:,} boards examined)"]
    example = result.counterexample
    if example is None:
        return lines
    if example.error is not None:
        lines.append(f"  the AI misbehaved after moves [{', '.join(map(str, example.moves))}]: {example.error}")
    else:
        lines.append(f"  counterexample, {len(example.moves)} moves from the empty board, "
                     f"the AI playing {example.side}:")
        lines.append(f"  {describe_moves(example.moves)}")
    lines += _drawn(example.board, "  ")
    return lines


def _mistake_lines(mistake: Mistake | None) -> list[str]:
    if mistake is None:
        return []
    return [
        f"  its first mistake, at move {mistake.ply + 1}: it may play {describe_moves([mistake.move])}, "
        f"best is {describe_moves(mistake.best)}",
        *_drawn(mistake.board, "  "),
    ]


def _strong_lines(result: StrongResult, show: int, symmetric: bool | None) -> list[str]:
    verdict = "solved" if result.solved else "NOT solved"
    target = "shortest best moves" if result.shortest else "best moves"
    lines = [f"strong:      {verdict} ({result.correct:,}/{result.total:,} {result.positions} positions "
             f"play only {target})"]
    if result.positions == "decision_canonical":
        lines.append("  (canonical positions only: valid just for AIs that treat symmetric boards alike)")
        if symmetric is False:
            lines.append("  warning: this AI does not treat symmetric boards alike, so the canonical result "
                         "does not speak for every board")
    shown = result.failures[:show]
    if shown:
        lines.append(f"  failures ({len(shown)} of {len(result.failures):,}; --show N for more):")
    for failure in shown:
        lines.append("")
        if failure.error is not None:
            lines.append(f"  {failure.board}: {failure.error}; best: {describe_moves(failure.best)}")
        else:
            lines.append(f"  {failure.board}: may play {describe_moves(failure.chosen)}; "
                         f"best: {describe_moves(failure.best)}")
        lines += _drawn(failure.board, "    ")
    return lines


def report_lines(report: CheckReport, show: int, symmetric: bool | None) -> list[str]:
    lines = [f"{report.ai}: {'solved' if report.solved else 'NOT solved'}"]
    if report.weak is not None:
        for side in (report.weak.o, report.weak.x):
            lines += _weak_lines(side)
            lines += _mistake_lines(report.mistakes.get(side.side))
    if report.strong is not None:
        lines += _strong_lines(report.strong, show, symmetric)
    return lines


@contextmanager
def _counting_calls(named: NamedAI) -> Iterator[NamedAI]:
    """The AI with each call counted on a progress bar that appears only if the checks take
    longer than half a second (a slow user AI)."""
    from tqdm import tqdm

    with tqdm(desc=f"asking {named.name}", unit="board", delay=0.5, file=sys.stderr, leave=False) as bar:
        play, update = named.play, bar.update

        def counted(board: str) -> Collection[int]:
            update()
            return play(board)

        yield replace(named, play=counted)


def _check_all(database: SolutionDatabase, as_json: bool) -> None:
    from tqdm import tqdm

    from ttt_db.ais import DEFAULT_INSTANCES, load_ai
    from ttt_db.solve_check import run_checks

    reports = []
    for name in tqdm(DEFAULT_INSTANCES, desc="checking", unit="ai", file=sys.stderr):
        reports.append(run_checks(load_ai(name, lambda: database), database))
    if as_json:
        print_json([report.to_dict() for report in reports])
        return
    typer.echo(f"{'ai':<20} {'weak as o':>10} {'weak as x':>10} {'strong':>12}")
    for report in reports:
        assert report.weak is not None and report.strong is not None
        typer.echo(
            f"{report.ai:<20} {'solved' if report.weak.o.solved else 'LOSES':>10} "
            f"{'solved' if report.weak.x.solved else 'LOSES':>10} "
            f"{report.strong.correct:>6,}/{report.strong.total:,}"
        )


@handle_errors
def check(
    ai: Annotated[str | None, typer.Argument(
        metavar="AI", help="A built-in AI (see `ttt-db ais`) or package.module:function.", show_default=False)] = None,
    weak: Annotated[bool, typer.Option("--weak", help="From the empty board, does it never lose?")] = False,
    strong: Annotated[bool, typer.Option("--strong", help="Is it optimal at every decision position?")] = False,
    canonical: Annotated[bool, typer.Option(
        "--canonical", help="Strong check over the 431 canonical decision positions only.")] = False,
    shortest: Annotated[bool, typer.Option(
        "--shortest", help="Strong check against the shortest best moves (win fastest, lose slowest).")] = False,
    show: Annotated[int, typer.Option("--show", min=0, metavar="N", help="How many failing boards to draw.")] = 10,
    all_ais: Annotated[bool, typer.Option("--all", help="Every built-in AI in one table (exit 0).")] = False,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Is the AI solved? Weakly (never loses from the start, as o and as x) and strongly (plays
    only best moves at the 3,191 decision positions). Both checks unless one is asked for.

    Exit 0 when every requested check passes, 1 when one fails, 2 for an unknown AI."""
    from ttt_db.ais import load_ai
    from ttt_db.solve_check import run_checks

    if all_ais == (ai is not None):
        raise fail("give an AI to check, or --all for every built-in AI")
    with open_db(db) as database:
        if all_ais:
            _check_all(database, as_json)
            return
        assert ai is not None
        named = load_ai(ai, lambda: database)
        both = not weak and not strong
        with _counting_calls(named) as counted:
            report = run_checks(counted, database, weak=weak or both, strong=strong or both,
                                canonical=canonical, shortest=shortest)
    if as_json:
        print_json(report.to_dict())
    else:
        typer.echo("\n".join(report_lines(report, show, named.symmetric)))
    if not report.solved:
        raise typer.Exit(EXIT_NO)


def register(app: typer.Typer) -> None:
    app.command()(ais)
    app.command()(check)

