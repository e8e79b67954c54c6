"""`ttt-db serve`: the board explorer and perfect opponent in a browser, over a JSON API."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from ttt_db.cli.common import chosen_game, open_db
from ttt_db.cli.exits import EXIT_INTERRUPTED, fail
from ttt_db.cli.options import DbOption, DigestOption, GameOption
from ttt_db.game.definition import DEFAULT_GAME, Game

if TYPE_CHECKING:
    from ttt_db.store.database import SolutionDatabase


SWITCH_INTERVAL = 0.0002
"""Seconds between the interpreter's thread switches while serving: searches run in threads, and the
event loop gets the interpreter lock back this often."""


def serve(
    host: Annotated[
        str,
        typer.Option(
            "--host",
            metavar="ADDRESS",
            help="Address to listen on; other machines reach the page only if it is not 127.0.0.1.",
        ),
    ] = "127.0.0.1",
    port: Annotated[
        int, typer.Option("--port", min=0, max=65535, metavar="PORT", help="Port, 0 to 65535 (0: any free one).")
    ] = 8000,
    open_browser: Annotated[bool, typer.Option("--open", help="Open the page in the default browser.")] = False,
    game: GameOption = None,
    db: DbOption = None,
    digest: DigestOption = None,
) -> None:
    """Serve a page to play, explore, check and watch searches, and its JSON API (docs/api.md):
    the game's database (built first when missing) and, without --db, every other game whose
    database is in the default folder, chosen on the page. Prints the URL; Ctrl-C stops it."""
    game = chosen_game(game, db)
    import contextlib
    import socket
    import sys
    import webbrowser

    from ttt_db.web.app import create_app
    from ttt_db.web.server import Server, server_config

    with open_db(db, game, digest) as database, contextlib.ExitStack() as others:
        more = [] if db is not None else [others.enter_context(other) for other in _other_games(database.game)]
        for served_database in (database, *more):  # a large game's lookups in arrays, its kernels loaded now
            served_database.prepare_arrays()
        listener = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            listener.bind((host, port))
        except OSError as error:
            raise fail(f"cannot listen on {host}:{port}: {error.strerror}") from None
        listener.listen(2048)  # connections wait from now on, so the URL printed next already answers
        bound_port = listener.getsockname()[1]
        shown_host = f"[{host}]" if ":" in host else host
        url = f"http://{shown_host}:{bound_port}/"
        served = ", ".join(d.game.name for d in [database, *more])
        typer.echo(f"ttt-db serves {served} at {url} (Ctrl-C stops it)")
        if open_browser:
            webbrowser.open(url)
        sys.setswitchinterval(SWITCH_INTERVAL)
        config = server_config(create_app(database, *more))
        server = Server(config)
        try:
            server.run(sockets=[listener])
        except KeyboardInterrupt:  # uvicorn raises the Ctrl-C again once it has shut down (SIGTERM too: 143)
            typer.echo("stopped")
            raise typer.Exit(EXIT_INTERRUPTED) from None
        if server.stopped_by is not None:  # the signal was not raised again: the exit code says it all the same
            typer.echo("stopped")
            raise typer.Exit(128 + server.stopped_by)
    typer.echo("stopped")


def _other_games(served: Game) -> list[SolutionDatabase]:
    """Every other game's database in the default folder that opens (`ttt-db-RxCkK.sqlite`)."""
    from ttt_db.errors import TttDbError
    from ttt_db.ranked.slots import game_from_name
    from ttt_db.store.database import open_database
    from ttt_db.store.location import default_path

    found = []
    for path in sorted(default_path(DEFAULT_GAME).parent.glob("ttt-db-*.sqlite")):
        try:
            other = game_from_name(path.stem.removeprefix("ttt-db-"))
            if other != served and other != DEFAULT_GAME:
                found.append(open_database(path, game=other))
        except TttDbError as error:
            typer.echo(f"not serving {path}: {error}", err=True)
    if served != DEFAULT_GAME and default_path(DEFAULT_GAME).is_file():
        found.insert(0, open_database(default_path(DEFAULT_GAME)))
    return found


def register(app: typer.Typer) -> None:
    app.command()(serve)
