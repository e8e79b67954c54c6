"""`ttt-db match` and `ttt-db play`: AIs against each other, and a person against an AI."""

from __future__ import annotations

import random
import sys
import textwrap
from typing import TYPE_CHECKING, Annotated

import typer

from ttt_db.ais.limits import DEFAULT_IMPORT_SECONDS, DEFAULT_MEMORY_MB
from ttt_db.cli.common import chosen_game, open_db, read_policy_files
from ttt_db.cli.exits import fail
from ttt_db.cli.options import (
    AI_HELP,
    DbOption,
    DigestOption,
    GameOption,
    ImportTimeoutOption,
    JsonOption,
    MemoryOption,
    QuietOption,
    Side,
    TimeoutOption,
)
from ttt_db.cli.progress import progress_bar
from ttt_db.cli.render import describe_moves, diagram, indented_diagram, plural, shares
from ttt_db.cli.streams import ai_output_to_stderr, print_json, say_waiting
from ttt_db.game.definition import DEFAULT_GAME, Game

if TYPE_CHECKING:
    from ttt_db.ais.limits import Limits
    from ttt_db.ais.protocol import NamedAI
    from ttt_db.game.rules import Mark
    from ttt_db.play.match import MatchResult, Tally
    from ttt_db.play.playthrough import Playthrough
    from ttt_db.store.database import SolutionDatabase


def _tally_line(label: str, tally: Tally) -> str:
    counts = (tally.win, tally.loss, tally.draw)
    cells = [f"{count:>9,} {share:>6}" for count, share in zip(counts, shares(counts), strict=True)]
    return f"{label:<6}" + "".join(cells)


def match_lines(ai1: str, ai2: str, result: MatchResult, seed: int | None, game: Game) -> list[str]:
    seeded = f" (seed {seed})" if seed is not None else ""
    of_game = "" if game == DEFAULT_GAME else f" of {game.name}"
    games = 2 * result.games
    rate = games / result.seconds if result.seconds > 0 else float("inf")
    return [
        f"{ai1} vs {ai2}: {plural(result.games, 'game')}{of_game} with {ai1} as o and {result.games:,} as x{seeded}",
        f"{'':<6}{'win':>16}{'loss':>16}{'draw':>16}   (from {ai1}'s side)",
        _tally_line("as o", result.as_o),
        _tally_line("as x", result.as_x),
        _tally_line("total", result.total),
        f"{plural(games, 'game')} in {result.seconds:.2f} s ({rate:,.0f} games/s)",
        *_lost_game_lines(ai1, result, game),
    ]


def _lost_game_lines(ai1: str, result: MatchResult, game: Game) -> list[str]:
    """One game AI1 lost, move by move (`--json` holds the first few of each side)."""
    for side, lost in (("o", result.lost_as_o), ("x", result.lost_as_x)):
        if lost:
            record = lost[0]
            return [
                f"a game {ai1} lost as {side}: {describe_moves(record.moves, game)}",
                *indented_diagram(record.board, "  ", game),
            ]
    return []


def match(
    ai1: Annotated[
        str,
        typer.Argument(
            metavar="AI1",
            help=AI_HELP,
            show_default=False,
        ),
    ],
    ai2: Annotated[str, typer.Argument(metavar="AI2", help="Its opponent.", show_default=False)],
    games: Annotated[int, typer.Option("-n", "--games", min=0, metavar="N", help="Games on each side.")] = 1000,
    seed: Annotated[int | None, typer.Option("--seed", metavar="S", help="Seed for a reproducible match.")] = None,
    exact: Annotated[
        bool,
        typer.Option(
            "--exact",
            help="Instead of playing games, the outcome probabilities an endless match would tally, exactly "
            "(games of at most 12 cells).",
        ),
    ] = False,
    timeout: TimeoutOption = None,
    memory: MemoryOption = DEFAULT_MEMORY_MB,
    import_timeout: ImportTimeoutOption = DEFAULT_IMPORT_SECONDS,
    quiet: QuietOption = False,
    db: DbOption = None,
    digest: DigestOption = None,
    game: GameOption = None,
    as_json: JsonOption = False,
) -> None:
    """N games with AI1 as o and N with AI1 as x; every move drawn among the AI's candidates,
    uniformly, or by the probabilities it answers. Counts and ratios from AI1's side. --exact
    gives the probabilities instead, with no game played."""
    game = chosen_game(game, db)
    from ttt_db.ais.isolation import contained_ai
    from ttt_db.ais.limits import Limits
    from ttt_db.errors import AIMisbehaved
    from ttt_db.play.match import run_match

    read_policy_files((ai1, ai2), game, quiet=quiet)
    if exact:
        _exact_match(ai1, ai2, (db, digest, game), Limits(timeout, memory, import_timeout), as_json)
        return

    database: SolutionDatabase | None = None

    def provide_database() -> SolutionDatabase:
        nonlocal database
        if database is None:
            database = open_db(db, game, digest)
        return database

    limits = Limits(timeout, memory, import_timeout)
    try:
        with (
            ai_output_to_stderr(),
            progress_bar(2 * games, "games", "game", quiet=quiet) as bar,
            contained_ai(ai1, game, provide_database, limits, waiting=say_waiting) as first,
            contained_ai(ai2, game, provide_database, limits, waiting=say_waiting) as second,
        ):
            result = run_match(
                first.play,
                second.play,
                games,
                seed=seed,
                game=game,
                progress=lambda done, total: bar.update(done - bar.n),
            )
    except AIMisbehaved as error:
        raise fail(f"an AI misbehaved {error}") from None
    finally:
        if database is not None:
            database.close()
    if as_json:
        print_json(result.to_document())
    else:
        typer.echo("\n".join(match_lines(ai1, ai2, result, seed, game)))


def _exact_match(ai1: str, ai2: str, where: tuple[str | None, str | None, Game], limits: Limits, as_json: bool) -> None:
    """`match --exact`: AI1's outcome probabilities against AI2, as o and as x."""
    from ttt_db.ais.isolation import contained_ai
    from ttt_db.ais.registry import named_core_policy
    from ttt_db.checks.measures import exact_match, refuse_unmeasurable
    from ttt_db.errors import AIMisbehaved

    db, digest, game = where
    refuse_unmeasurable(game, [(name, named_core_policy(name, game)) for name in (ai1, ai2)])  # before a build
    try:
        with (
            open_db(db, game, digest) as database,
            ai_output_to_stderr(),
            contained_ai(ai1, game, lambda: database, limits, waiting=say_waiting) as first,
            contained_ai(ai2, game, lambda: database, limits, waiting=say_waiting) as second,
        ):
            outcomes = exact_match(first, second, game, database)
    except AIMisbehaved as error:
        raise fail(f"an AI misbehaved {error}") from None
    if as_json:
        print_json(
            {"ai1": ai1, "ai2": ai2, "game": game.name, **{side: o.to_document() for side, o in outcomes.items()}}
        )
        return
    typer.echo(f"{ai1} vs {ai2}, exactly (every game an endless match would play, by its probability)")
    typer.echo(f"{'':<6}{'win':>10}{'loss':>10}{'draw':>10}  expected score   (from {ai1}'s side)")
    for side, outcome in outcomes.items():
        shares = (outcome.win, outcome.loss, outcome.draw)
        cells = "".join(f"{float(share):>10.4%}" for share in shares)
        typer.echo(f"{'as ' + side:<6}{cells}  {float(outcome.score):+.6f}")


def play_help(game: Game) -> str:
    last = game.move_name(game.cells - 1)
    return (
        f"enter a move as an index 0-{game.cells - 1}, a name like {last}, or x,y (column,row from 0),\n"
        "or a command: hint, undo, quit"
    )


def _hint_lines(database: SolutionDatabase, playthrough: Playthrough) -> list[str]:
    game = playthrough.game
    position = database.lookup(playthrough.board.cells)
    outcome = {"win": "win", "draw": "draw", "loss": "lose"}[position.value]
    lines = [f"hint: you {outcome} with best play"]
    hinted = position.hinted_moves
    if position.value == "draw":
        lines.append(f"best: {describe_moves(hinted, game)}")
    else:
        which = "the fastest win" if position.value == "win" else "the slowest loss"
        lines.append(f"best: {describe_moves(hinted, game)}, {which}")
        slower = [move for move in position.best_moves if move not in hinted]
        if position.value == "win" and slower:
            lines.append(f"also winning, more slowly: {describe_moves(slower, game)}")
    for analysis in position.moves_best_first():
        lines.append(f"  {game.move_label(analysis.move)} {analysis.outcome}")
    return lines


def _result_line(playthrough: Playthrough, human: str, ai: str) -> str:
    if playthrough.status == "draw":
        return "result: draw"
    if playthrough.status == human:
        return f"result: {human} wins: you beat {ai}"
    return f"result: {playthrough.status} wins: {ai} beat you"


def _ask(prompt: str) -> str | None:
    """A line of input, echoed when piped so the transcript stays readable; None at the end."""
    try:
        line = input(prompt)
    except EOFError:
        typer.echo("")
        return None
    if not sys.stdin.isatty():
        typer.echo(line)
    return line.strip().lower()


def _play_one_game(
    database: SolutionDatabase, opponent: NamedAI, human: Mark, rng: random.Random
) -> tuple[Playthrough, bool]:
    """One game, and whether it went on to the end (not quit, input not ended)."""
    from ttt_db.ais.calling import choose_move
    from ttt_db.errors import AIMisbehaved, InvalidMoveError
    from ttt_db.play.playthrough import Playthrough

    rules = database.game
    playthrough = Playthrough(rules)
    typer.echo(diagram(playthrough.board.cells, rules))
    while not playthrough.is_over:
        mover = playthrough.to_move
        if mover != human:
            try:
                move = choose_move(opponent, playthrough.board, rng).move
            except AIMisbehaved as error:
                raise fail(f"{opponent.name} misbehaved {error}") from None
            playthrough.push(move)
            typer.echo(f"\n{opponent.name} ({mover}) plays {rules.move_label(move)}")
            typer.echo(diagram(playthrough.board.cells, rules))
            continue
        command = _ask(f"your move ({human}): ")
        if command is None:
            typer.echo("input ended: game abandoned")
            return playthrough, False
        if command in ("quit", "q", "exit"):
            typer.echo("you quit")
            return playthrough, False
        if command in ("help", "?", ""):
            typer.echo(play_help(rules))
        elif command == "hint":
            typer.echo("\n".join(_hint_lines(database, playthrough)))
        elif command == "undo":
            try:
                playthrough.undo_turn(human)
            except InvalidMoveError:
                typer.echo("nothing to undo: no move of yours is on the board")
                continue
            typer.echo("took back your last move and the reply")
            typer.echo(diagram(playthrough.board.cells, rules))
        else:
            try:
                move = parse_and_push(playthrough, command)
            except InvalidMoveError as error:
                typer.echo(f"{error.reason}; try again (or a command: hint, undo, quit, help)")
                continue
            typer.echo(f"\nyou ({human}) play {rules.move_label(move)}")
            typer.echo(diagram(playthrough.board.cells, rules))
    return playthrough, True


def parse_and_push(playthrough: Playthrough, command: str) -> int:
    from ttt_db.game.board import parse_move

    move = parse_move(command, playthrough.game)
    playthrough.push(move)
    return move


def _game_summary(database: SolutionDatabase, playthrough: Playthrough, human: Mark, ai: str) -> list[str]:
    game = playthrough.game
    lines = [_result_line(playthrough, human, ai), f"moves: {describe_moves(playthrough.moves, game)}"]
    mistake = playthrough.first_mistake(database.lookup, human)
    if mistake is not None:
        lines += textwrap.wrap(f"your first mistake, {mistake.text}", 80, subsequent_indent="  ")
    return lines


def play(
    ai: Annotated[
        str,
        typer.Option(
            "--ai",
            metavar="AI",
            help="The opponent: any AI `ttt-db ais` lists, module:function, or a policy file (policy.json).",
        ),
    ] = "perfect",
    side: Annotated[Side, typer.Option("--as", case_sensitive=False, help="Your side; o moves first.")] = Side.o,
    seed: Annotated[int | None, typer.Option("--seed", metavar="S", help="Seed for the AI's choices.")] = None,
    timeout: TimeoutOption = None,
    memory: MemoryOption = DEFAULT_MEMORY_MB,
    import_timeout: ImportTimeoutOption = DEFAULT_IMPORT_SECONDS,
    db: DbOption = None,
    digest: DigestOption = None,
    game: GameOption = None,
) -> None:
    """Play against an AI (the database by default) in the terminal. Moves are typed as an
    index, a name like b3, or x,y; `hint` shows every move's value, `undo` takes back your last
    move and the reply, `quit` leaves. After a loss, or a draw that could have been a win, it
    shows your first mistake and offers a rematch. Works with piped input. A user AI runs in a
    process of its own, held to --timeout and --memory."""
    game = chosen_game(game, db)
    from ttt_db.ais.isolation import contained_ai
    from ttt_db.ais.limits import Limits
    from ttt_db.ais.registry import check_ai_name

    human = side.mark
    rng = random.Random(seed)
    limits = Limits(timeout, memory, import_timeout)
    # an unknown AI fails before anything is said, and a built-in one's name before any database is built
    read_policy_files([ai], game)
    check_ai_name(ai, game)
    with (
        open_db(db, game, digest) as database,
        contained_ai(ai, game, lambda: database, limits, waiting=say_waiting) as opponent,
    ):
        of_game = "" if game == DEFAULT_GAME else f" on {game.name}"
        typer.echo(f"you play {human} against {ai}{of_game}\n{play_help(game)}")
        while True:
            playthrough, finished = _play_one_game(database, opponent, human, rng)
            if not finished:
                typer.echo(f"moves: {describe_moves(playthrough.moves, game)}")
                return
            typer.echo("\n".join(_game_summary(database, playthrough, human, ai)))
            if not _play_again():
                return
            typer.echo("")


def _play_again() -> bool:
    """Asked after a game: yes or no; anything else (a move typed on) asked again, not taken as no."""
    while True:
        answer = _ask("play again? [y/N] ")
        if answer in (None, "", "n", "no", "q", "quit"):
            return False
        if answer in ("y", "yes"):
            return True
        typer.echo(f"the game is over: answer y to play again, or n to stop (not {answer!r})")


def register(app: typer.Typer) -> None:
    app.command()(match)
    app.command()(play)
