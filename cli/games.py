"""`ttt-db match` and `ttt-db play`: AIs against each other, and a person against an AI."""

from __future__ import annotations

import random
import sys
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated

import typer

from cli.common import DbOption, JsonOption, fail, handle_errors, open_db, print_json
from ttt_db.board import describe_moves, parse_move
from ttt_db.errors import InvalidMoveError

if TYPE_CHECKING:
    from ttt_db.database import SolutionDatabase
    from ttt_db.game import Game
    from ttt_db.match import MatchResult, Tally



def _tally_line(label: str, tally: Tally) -> str:
    cells = [f"{count:>9,} {ratio:>6.1%}" for count, ratio in zip(
        (tally.win, tally.loss, tally.draw), tally.ratios(), strict=True)]
    return f"{label:<6}" + "".join(cells)


def match_lines(ai1: str, ai2: str, result: MatchResult, seed: int | None) -> list[str]:
    seeded = f" (seed {seed})" if seed is not None else ""
    games = 2 * result.games
    rate = games / result.seconds if result.seconds > 0 else float("inf")
    return [
        f"{ai1} vs {ai2}: {result.games:,} games with {ai1} as o and {result.games:,} as x{seeded}",
        f"{'':<6}{'win':>16}{'loss':>16}{'draw':>16}   (from {ai1}'s side)",
        _tally_line("as o", result.as_o),
        _tally_line("as x", result.as_x),
        _tally_line("total", result.total),
        f"{games:,} games in {result.seconds:.2f} s ({rate:,.0f} games/s)",
    ]


@handle_errors
def match(
    ai1: Annotated[str, typer.Argument(metavar="AI1", help="Any AI `ttt-db ais` lists, or package.module:function.",
                                       show_default=False)],
    ai2: Annotated[str, typer.Argument(metavar="AI2", help="Its opponent.", show_default=False)],
    games: Annotated[int, typer.Option("-n", "--games", min=0, metavar="N", help="Games on each side.")] = 1000,
    seed: Annotated[int | None, typer.Option("--seed", metavar="S", help="Seed for a reproducible match.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """N games with AI1 as o and N with AI1 as x; every move a uniform random choice among the
    AI's candidates. Counts and ratios from AI1's side."""
    from ttt_db.ais import load_ai
    from ttt_db.checks import AIMisbehaved
    from ttt_db.match import run_match

    database: SolutionDatabase | None = None

    def provide_database() -> SolutionDatabase:
        nonlocal database
        if database is None:
            database = open_db(db)
        return database

    first, second = load_ai(ai1, provide_database), load_ai(ai2, provide_database)
    progress = None
    bar = None
    if not quiet:
        from tqdm import tqdm

        bar = tqdm(total=2 * games, desc="games", unit="game", file=sys.stderr, leave=False)

        def progress(done: int, total: int) -> None:
            bar.update(done - bar.n)
    try:
        result = run_match(first.play, second.play, games, seed=seed, progress=progress)
    except AIMisbehaved as error:
        raise fail(f"an AI misbehaved {error}") from None
    finally:
        if bar is not None:
            bar.close()
        if database is not None:
            database.close()
    if as_json:
        print_json(result.to_dict())
    else:
        typer.echo("\n".join(match_lines(ai1, ai2, result, seed)))


class Side(StrEnum):
    o = "o"
    x = "x"


PLAY_HELP = "moves: an index 0-8, a name like b3, or x,y; commands: hint, undo, quit"


def _hint_lines(database: SolutionDatabase, game: Game) -> list[str]:
    position = database.lookup(game.board.cells)
    lines = [f"hint: {position.value} with best play; best: {describe_moves(position.best_moves)}"]
    for analysis in position.moves_best_first():
        lines.append(f"  {analysis.move} ({analysis.name}): {analysis.value}, "
                     f"{analysis.remoteness} plies left after it")
    return lines


def _result_line(game: Game, human: str, ai: str) -> str:
    if game.status == "draw":
        return "result: draw"
    if game.status == human:
        return f"result: {human} wins: you beat {ai}"
    return f"result: {game.status} wins: {ai} beat you"


@handle_errors
def play(
    ai: Annotated[str, typer.Option("--ai", help="The opponent: any AI `ttt-db ais` lists.")] = "perfect",
    side: Annotated[Side, typer.Option("--as", help="Your side; o moves first.")] = Side.o,
    seed: Annotated[int | None, typer.Option("--seed", metavar="S", help="Seed for the AI's choices.")] = None,
    db: DbOption = None,
) -> None:
    """Play against an AI (the database by default) in the terminal. Moves are typed as an
    index, a name like b3, or x,y; `hint` shows every move's value, `undo` takes back your last
    move and the reply, `quit` leaves. Works with piped input."""
    from ttt_db.ais import load_ai
    from ttt_db.board import diagram
    from ttt_db.checks import AIMisbehaved, candidate_moves
    from ttt_db.game import Game

    human = side.value
    rng = random.Random(seed)
    with open_db(db) as database:
        opponent = load_ai(ai, lambda: database)
        game = Game()
        typer.echo(f"you play {human} against {ai}; {PLAY_HELP}")
        typer.echo(diagram(game.board.cells))
        while not game.is_over:
            mover = game.to_move
            if mover != human:
                try:
                    move = rng.choice(candidate_moves(opponent.play, game.board.cells))
                except AIMisbehaved as error:
                    raise fail(f"{ai} misbehaved {error}") from None
                game.push(move)
                typer.echo(f"\n{ai} ({mover}) plays {describe_moves([move])}")
                typer.echo(diagram(game.board.cells))
                continue
            try:
                line = input(f"your move ({human}): ")
            except EOFError:
                typer.echo("\ninput ended: game abandoned")
                break
            if not sys.stdin.isatty():
                typer.echo(line)  # piped input is not echoed by a terminal: keep the transcript readable
            command = line.strip().lower()
            if command in ("quit", "q", "exit"):
                typer.echo("you quit")
                break
            if command in ("help", "?", ""):
                typer.echo(PLAY_HELP)
            elif command == "hint":
                typer.echo("\n".join(_hint_lines(database, game)))
            elif command == "undo":
                if len(game.moves) < 2:
                    typer.echo("nothing to undo: no move of yours is on the board")
                else:
                    game.undo(2)
                    typer.echo("took back your last move and the reply")
                    typer.echo(diagram(game.board.cells))
            else:
                try:
                    move = parse_move(command)
                    game.push(move)
                except InvalidMoveError as error:
                    typer.echo(f"{error.reason}; try again (help lists the commands)")
                    continue
                typer.echo(f"\nyou ({human}) play {describe_moves([move])}")
                typer.echo(diagram(game.board.cells))
        if game.is_over:
            typer.echo(_result_line(game, human, ai))
        typer.echo(f"moves: {describe_moves(game.moves) or 'none'}")


def register(app: typer.Typer) -> None:
    app.command()(match)
    app.command()(play)
