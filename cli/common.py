"""What the commands share beyond options and exits: the game a command answers for (`chosen_game`),
opening its database (`open_db`, building it on first use), and policy files read with progress."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import typer

from ttt_db.cli.progress import ProgressBar, progress_bar
from ttt_db.game.definition import DEFAULT_GAME, Game

if TYPE_CHECKING:
    from ttt_db.store.database import SolutionDatabase


def read_policy_files(names: Iterable[str | None], game: Game, *, quiet: bool = False) -> None:
    """Read now the policy files among a command's AI names, each with a progress bar (a large
    table takes a while to read): every later load of the file finds it read (`load_policy_file`).
    A name that is not a policy file's is left to the command."""
    from ttt_db.ais.tabular import is_policy_file, load_policy_file

    for name in names:
        if name is None or not is_policy_file(name):
            continue
        with progress_bar(None, f"reading {name.strip()}", "board", quiet=quiet) as bar:

            def report(done: int, total: int, bar: ProgressBar = bar) -> None:
                if bar.total != total:
                    bar.reset(total=total)
                bar.update(done - bar.n)

            load_policy_file(name, game, report)


def chosen_game(game: Game | None, db: str | None) -> Game:
    """The game a command answers: --game's where given, else that of the database file --db (or
    TTT_DB) names where one is there, else tic-tac-toe. A file that is no database of ours is left
    for the command's own open to refuse."""
    if game is not None:
        return game
    if db is None:
        return DEFAULT_GAME
    from ttt_db.errors import DatabaseError
    from ttt_db.store.database import stored_game

    try:
        return stored_game(db) or DEFAULT_GAME
    except DatabaseError:
        return DEFAULT_GAME


def open_db(db: str | None, game: Game, digest: str | None = None, *, recorded: bool = True) -> SolutionDatabase:
    """Open the game's database (pinned: `ttt_db.open_database`), building it first when there is
    none (`open_or_build`, with a notice on stderr)."""
    from ttt_db.errors import DatabaseMissingError
    from ttt_db.store.database import open_database

    try:
        return open_database(db, game=game, digest=digest, recorded=recorded)
    except DatabaseMissingError:
        from ttt_db.build.pipeline import open_or_build  # the builder loads only when there is a build to run

        return open_or_build(
            db, game=game, notice=lambda message: typer.echo(message, err=True), digest=digest, recorded=recorded
        )
