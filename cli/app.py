"""The `ttt-db` command line: thin commands that parse, call `ttt_db`/`builder`, and print.

Heavy modules (SQLAlchemy, tqdm) are imported inside the commands that need them, so a
lookup pays only for what it uses.
"""

from __future__ import annotations

import copy
import sys
from collections.abc import Callable, Sequence
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
import typer.main
from typer.models import CommandInfo

from ttt_db.cli.common import chosen_game, open_db
from ttt_db.cli.exits import EXIT_NO, App, BoardCommand, DebugSwitch, fail
from ttt_db.cli.options import (
    AnyGameOption,
    BoardArgument,
    DbOption,
    DigestOption,
    FirstOption,
    GameOption,
    JsonOption,
    ProcessesOption,
    QuietOption,
    Side,
    first_mark,
    max_seconds_option,
)
from ttt_db.cli.progress import progress_bar, stage_progress
from ttt_db.cli.streams import ArrivedLines, print_json, write_text_output
from ttt_db.game.definition import DEFAULT_GAME, TICTACTOE, Game
from ttt_db.outputs.export_rows import RowMode, database_rows

if TYPE_CHECKING:
    from ttt_db.build.census import CensusRow
    from ttt_db.game.rules import Mark
    from ttt_db.position import Position
    from ttt_db.store.database import SolutionDatabase

app = typer.Typer(
    name="ttt-db",
    cls=App,
    help="A precomputed, exact solution database for tic-tac-toe: build it, query it, "
    "check AIs against it, and play it.\n\n"
    "Boards are the game's cells in reading order (9 on tic-tac-toe, the default; --game RxCkK "
    "for another m,n,k game): o, x, and . - _ or space for empty; / may separate rows "
    "(ox./.x./...). Moves are an index (0-8 on 3x3), a name like b3 (column letter, row number "
    "from the top), or x,y (column,row, both counted from 0).\n\n"
    "Viewpoints: score and sv_score are from the first player's side; value and remoteness "
    "from the side to move; playout is [o wins, x wins, draw].\n\n"
    "Exit codes: 0 success, 1 the answer is no (a failed check or verify), 2 bad input, "
    "3 a bug in ttt-db (--debug shows the traceback). Documentation: docs/ in the repository.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _print_version(value: bool) -> None:
    if value:
        from ttt_db import __version__

        typer.echo(f"ttt-db {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool, typer.Option("--version", callback=_print_version, is_eager=True, help="Print the version and exit.")
    ] = False,
    debug: Annotated[
        bool, typer.Option("--debug", help="On an internal error (exit 3), print the traceback too.")
    ] = False,
) -> None:
    """Options of the app itself."""
    DebugSwitch.on = debug


@app.command()
def build(
    game: AnyGameOption = DEFAULT_GAME,
    db: DbOption = None,
    digest: DigestOption = None,
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="Rebuild even if the database exists, solving every level again (a stopped build's are discarded).",
        ),
    ] = False,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            min=1,
            metavar="N",
            help="Solve each level on a Dask cluster of N worker processes on this machine (pip install "
            "'ttt-db[dask]'); the same database as without.",
        ),
    ] = None,
    scheduler: Annotated[
        str | None,
        typer.Option(
            "--scheduler",
            metavar="tcp://HOST:PORT",
            help="Solve each level on the Dask cluster whose scheduler is at this address (tcp://HOST:PORT); "
            "give --work-dir on storage every worker reaches (docs/scale.md).",
        ),
    ] = None,
    work_dir: Annotated[
        Path | None,
        typer.Option(
            "--work-dir", metavar="PATH", help="Keep the levels being solved here (beside the database by default)."
        ),
    ] = None,
    plan: Annotated[
        bool,
        typer.Option(
            "--plan",
            help="Say what the build would take (slots, canonical sets and boards per level, memory, with "
            "--workers each worker's too, disk, CPU time measured on this machine) and what this machine lacks, "
            "and build nothing.",
        ),
    ] = False,
    source: Annotated[
        str | None,
        typer.Option(
            "--from",
            metavar="URL|DIR",
            help="Fetch the game's database from a mirror (an http(s) URL or a folder `ttt-db publish` wrote) "
            "instead of solving it: a broken download resumes, and the file is kept only when its size, SHA-256 "
            "and content digest are the manifest's (and --digest's, if given).",
        ),
    ] = None,
    max_seconds: Annotated[
        float | None,
        max_seconds_option(
            "With --from: give the fetch up after S seconds in all (default 6 hours), keeping the bytes it has "
            "for the same command to resume."
        ),
    ] = None,
    tables: Annotated[
        bool | None,
        typer.Option(
            "--tables/--no-tables",
            help="Also write the plain tables (a row per symmetry class and the named lists of boards, read "
            "with sqlite3, pandas or DuckDB alone: docs/database.md). Default: for games of at most 12 cells; "
            "--tables up to 16.",
            show_default=False,
        ),
    ] = None,
    as_json: JsonOption = False,
    quiet: QuietOption = False,
) -> None:
    """Solve the game level by level, deepest first, and write the database (atomically): the
    ranked core of every game (a byte per position), up to 16 cells each class's random-play
    odds and paths, and where asked (by default up to 12 cells) the plain tables. A build that
    was stopped resumes above its last finished level; --plan says what a build takes before it
    starts, and a build this machine cannot hold is refused with its plan (docs/games.md,
    docs/scale.md). The database's content digest is recorded as its pin (docs/database.md);
    --from fetches a published database instead."""
    from ttt_db.build.pipeline import build_database
    from ttt_db.build.plan import plan_build, plan_lines
    from ttt_db.cli.render import depth_table, figures_text

    if workers is not None and scheduler is not None:
        raise fail("give --workers (a cluster on this machine) or --scheduler (one of your own), not both")
    if source is not None:
        if workers is not None or scheduler is not None or plan or work_dir is not None:
            raise fail("--from fetches a built database: give no --workers, --scheduler, --work-dir or --plan with it")
        _fetch(source, game, db, digest, force=force, quiet=quiet, max_seconds=max_seconds, as_json=as_json)
        return
    if max_seconds is not None:
        raise fail("--max-seconds bounds a fetch: give it with --from (a build runs to its end, or resumes)")
    if plan:
        planned = plan_build(
            game,
            workers,
            work_dir or Path(db or ".").resolve().parent,
            cluster=bool(workers or scheduler),
            tables=tables,
        )
        if as_json:
            print_json(planned.to_document())
        else:
            typer.echo("\n".join(plan_lines(planned)))
        return
    client = None
    if workers is not None or scheduler is not None:
        from ttt_db.build.cluster import connect

        client = connect(workers, scheduler)
        count = len(client.scheduler_info()["workers"])
        typer.echo(f"solving on Dask: {count} workers, dashboard at {client.dashboard_link}", err=True)
    try:
        with stage_progress(quiet=quiet) as progress:
            summary = build_database(
                db,
                game=game,
                force=force,
                progress=progress,
                notice=lambda line: typer.echo(line, err=True),
                client=client,
                work_dir=work_dir,
                tables=tables,
            )
    finally:
        if client is not None:
            client.close()
            if scheduler is None:
                client.cluster.close()
    if as_json:
        print_json(summary.to_document())
        return
    if not summary.built:
        typer.echo(f"database already at {summary.location}; use --force to rebuild it")
        typer.echo(f"  content digest {summary.digest}")
        return
    size = f", {summary.size_bytes / 1e6:.2f} MB" if summary.size_bytes is not None else ""
    typer.echo(f"built {summary.location} in {summary.seconds:.2f} s{size}")
    for line in [*figures_text(summary.figures), *depth_table(summary.depths)]:
        typer.echo(f"  {line}")
    typer.echo(f"  content digest {summary.digest}")
    if summary.pinned is not None:
        typer.echo(f"  pinned: recorded in {summary.pinned}; a read refuses the file if it changes")
    elif summary.not_pinned is not None:
        typer.echo(f"  not pinned: {summary.not_pinned}")


@app.command()
def census(
    max_cells: Annotated[
        int,
        typer.Option(
            "--max-cells",
            min=6,
            max=25,
            metavar="N",
            help="The largest games taken: every game with 2 <= rows <= columns, rows x columns <= N and "
            "3 <= k <= columns (a board and its transpose are one game).",
        ),
    ] = 25,
    folder: Annotated[
        Path,
        typer.Option(
            "--folder",
            metavar="PATH",
            help="Where each game's row is kept (GAME.json) and its database built; run the command again "
            "to go on where it stopped.",
        ),
    ] = Path("census"),
    keep: Annotated[
        bool, typer.Option("--keep", help="Keep each game's database (by default deleted once its row is written).")
    ] = False,
    plan: Annotated[
        bool,
        typer.Option(
            "--plan",
            help="Say what the games not yet taken need (memory, disk, CPU time measured on this machine) "
            "and take none.",
        ),
    ] = False,
    markdown: Annotated[
        Path | None,
        typer.Option(
            "--markdown",
            metavar="FILE",
            help="Write the table into FILE (docs/games.md), replacing the census section it has, else at its end.",
        ),
    ] = None,
    recorded: Annotated[
        bool,
        typer.Option(
            "--recorded",
            help="Take no game: the table of the rows recorded so far (a census running elsewhere keeps adding).",
        ),
    ] = False,
    as_json: JsonOption = False,
    quiet: QuietOption = False,
) -> None:
    """Solve every m,n,k game up to --max-cells cells, one at a time, and record each one's
    figures: the empty board's value and plies, positions and classes, the positions in play by
    value, decision positions, the longest forced win and a board that has it, o's winning first
    moves, build CPU time, file size and content digest. Each game is built as `build --game G`
    builds it and counted as `stats` counts it; its row is written before the next game starts, so
    a census that is stopped goes on where it stopped. Prints the table (--json: the rows, with the
    limit they were taken to)."""
    from ttt_db.build.census import (
        CensusFolder,
        census_document,
        census_games,
        census_markdown,
        plan_census,
        with_census,
    )
    from ttt_db.cli.render import census_lines, census_plan_lines

    games = census_games(max_cells)
    if plan:
        with progress_bar(None, "planning", "game", quiet=quiet) as bar:

            def planned(done: int, total: int) -> None:
                if bar.total != total:
                    bar.reset(total=total)
                bar.update(done - bar.n)

            found = plan_census(folder, games, planned)
        if as_json:
            print_json(found.to_document(keep=keep))
        else:
            typer.echo("\n".join(census_plan_lines(found, keep=keep)))
        return
    rows = CensusFolder(folder).rows(games) if recorded else _taken_census(folder, games, keep=keep, quiet=quiet)
    if markdown is not None:
        text = markdown.read_text(encoding="utf-8") if markdown.exists() else ""
        markdown.write_text(with_census(text, census_markdown(rows, games)), encoding="utf-8")
    if as_json:
        print_json(census_document(rows, max_cells))
    else:
        typer.echo("\n".join(census_lines(rows)))


def _taken_census(folder: Path, games: list[Game], *, keep: bool, quiet: bool) -> list[CensusRow]:
    """Every game's row, recorded or taken now, each game said on stderr as it starts."""
    from ttt_db.build.census import take_census

    def starting(index: int, game: Game, recorded: object) -> None:
        if not quiet:
            state = "recorded before" if recorded is not None else f"{game.cells} cells"
            typer.echo(f"census {index + 1}/{len(games)}: {game.name} ({state})", err=True)

    with stage_progress(quiet=quiet) as progress:
        return list(
            take_census(
                folder,
                games,
                keep=keep,
                starting=starting,
                progress=progress,
                notice=lambda line: typer.echo(line, err=True),
            )
        )


def _fetch(
    source: str,
    game: Game,
    db: str | None,
    digest: str | None,
    *,
    force: bool,
    quiet: bool,
    max_seconds: float | None,
    as_json: bool,
) -> None:
    from ttt_db.store.database import database_exists
    from ttt_db.store.location import resolve_location
    from ttt_db.store.mirror import FETCH_SECONDS, fetch

    location = resolve_location(db, game)
    if not force and database_exists(location):
        if as_json:
            print_json({"location": str(location), "fetched": False})
            return
        typer.echo(f"database already at {location}; use --force to replace it with the published one")
        return
    with stage_progress(quiet=quiet) as progress:
        fetched = fetch(source, location, game, progress, digest=digest, max_seconds=max_seconds or FETCH_SECONDS)
    if as_json:
        print_json(fetched.to_document(str(location)))
        return
    resumed = f", resumed at byte {fetched.resumed_from:,}" if fetched.resumed_from else ""
    typer.echo(f"fetched {location} from {source} ({fetched.entry.size:,} bytes{resumed})")
    typer.echo(f"  SHA-256 {fetched.entry.sha256}: as its manifest says")
    typer.echo(f"  content digest {fetched.entry.digest}")
    if fetched.pinned is not None:
        typer.echo(f"  pinned: recorded in {fetched.pinned}; a read refuses the file if it changes")
    elif fetched.not_pinned is not None:
        typer.echo(f"  not pinned: {fetched.not_pinned}")


@app.command()
def publish(
    folder: Annotated[
        Path, typer.Argument(metavar="DIR", help="The mirror's folder (made if missing).", file_okay=False)
    ],
    game: GameOption = None,
    db: DbOption = None,
    digest: DigestOption = None,
) -> None:
    """Write what a mirror serves: the game's database file in DIR under its game's name, and DIR's
    manifest.json entry for it (size, SHA-256, content digest; an entry of the same game replaced).
    Serve DIR over HTTP, and `ttt-db build --from URL` fetches from it (docs/database.md)."""
    game = chosen_game(game, db)
    from ttt_db.store.mirror import MANIFEST_NAME
    from ttt_db.store.mirror import publish as publish_file

    entry = publish_file(db, folder, game=game, digest=digest)
    typer.echo(f"published {entry.game} as {folder / entry.file} ({entry.size:,} bytes)")
    typer.echo(f"  SHA-256 {entry.sha256}")
    typer.echo(f"  content digest {entry.digest}")
    typer.echo(f"  manifest {folder / MANIFEST_NAME}")


@app.command("best-moves", cls=BoardCommand)
def best_moves(
    board: BoardArgument,
    shortest: Annotated[
        bool, typer.Option("--shortest", help="Only the moves that win fastest or lose slowest.")
    ] = False,
    first: FirstOption = None,
    game: GameOption = None,
    db: DbOption = None,
    digest: DigestOption = None,
    as_json: JsonOption = False,
    processes: ProcessesOption = None,
) -> None:
    """The board, who is to move, its value, and the best moves (read from the database).

    A board where x has one more mark than o is answered with x as the first player. The value
    and remoteness are the mover's; score and sv_score are from the first player's side."""
    from ttt_db.cli.render import best_moves_text

    _answer(board, first, game, db, digest, as_json, processes, lambda found: best_moves_text(found, shortest=shortest))


def _answer(
    board: str,
    first: Side | None,
    game: Game | None,
    db: str | None,
    digest: str | None,
    as_json: bool,
    processes: int | None,
    text: Callable[[Position], str],
) -> None:
    """`best-moves` and `show`: the board's position as JSON (`--json`) or as `text` makes it; with
    BOARD -, a batch (`_answer_many`)."""
    from ttt_db.game.board import Board

    chosen = chosen_game(game, db)
    if board == "-":
        _answer_many(db, digest, chosen, first_mark(first), processes)
        return
    parsed = Board.parse(board, first_mark(first), chosen)  # a bad board is refused before any build
    with open_db(db, chosen, digest) as database:
        position = database.lookup(parsed)
    if as_json:
        print_json(position.to_document())
    else:
        typer.echo(text(position))


def _answer_many(db: str | None, digest: str | None, game: Game, first: Mark | None, processes: int | None) -> None:
    """`best-moves -` and `show -`: a board per line of stdin (or a JSON record `{"board", "first"}`),
    each answered on its own line of stdout, in order, as one JSON document (`--json`'s); a bad
    board's line is `{"input", "error"}`, and the rest are answered all the same. A large batch is
    answered by several processes (`ttt_db.cli.batch_processes`)."""
    from ttt_db.cli.batch_processes import answered_lines, default_processes

    arrivals = ArrivedLines(sys.stdin.buffer)
    with open_db(db, game, digest) as database:
        for lines in answered_lines(
            database,
            arrivals,
            first=first,
            more_arrived=arrivals.more_arrived,
            processes=processes or default_processes(),
        ):
            sys.stdout.buffer.write(lines)
            sys.stdout.buffer.flush()


@app.command(cls=BoardCommand)
def show(
    board: BoardArgument,
    first: FirstOption = None,
    game: GameOption = None,
    db: DbOption = None,
    digest: DigestOption = None,
    as_json: JsonOption = False,
    processes: ProcessesOption = None,
) -> None:
    """The board and every legal move with its value (for the player making it) and remoteness
    (plies left after it), best first."""
    from ttt_db.cli.render import show_text

    _answer(board, first, game, db, digest, as_json, processes, show_text)


@app.command(cls=BoardCommand)
def line(
    board: BoardArgument,
    shortest: Annotated[
        bool,
        typer.Option(
            "--shortest", help="Follow the shortest best moves: win fastest, lose slowest (the line's length is exact)."
        ),
    ] = False,
    first: FirstOption = None,
    game: GameOption = None,
    db: DbOption = None,
    digest: DigestOption = None,
    as_json: JsonOption = False,
) -> None:
    """Perfect play from the board to the end of the game: at each position its value, the plies
    left, every best move (the ties) and the one played, the first of them (the lowest cell)."""
    game = chosen_game(game, db)
    from ttt_db.cli.render import line_text
    from ttt_db.game.board import Board
    from ttt_db.play.line import perfect_line

    parsed = Board.parse(board, first_mark(first), game)  # a bad board is refused before any build
    with open_db(db, game, digest) as database:
        found = perfect_line(database, parsed, shortest=shortest)
    if as_json:
        print_json(found.to_document())
    else:
        typer.echo(line_text(found))


@app.command()
def stats(
    game: GameOption = None, db: DbOption = None, digest: DigestOption = None, as_json: JsonOption = False
) -> None:
    """The statistics of the solution: per depth the positions by their value for the side to move,
    positions by value and remoteness, the longest forced win and the slowest loss (with a board
    of each), and how many moves keep the value at the decision positions. Read from the core."""
    game = chosen_game(game, db)
    from ttt_db.cli.render import stats_text
    from ttt_db.outputs.stats import solution_stats

    with open_db(db, game, digest) as database:
        found = solution_stats(database)
    if as_json:
        print_json(found.to_document())
    else:
        typer.echo(stats_text(found))


@app.command()
def info(
    game: GameOption = None, db: DbOption = None, digest: DigestOption = None, as_json: JsonOption = False
) -> None:
    """Where the game's database is, its schema version, and the figures of its build."""
    game = chosen_game(game, db)
    from ttt_db.cli.render import depth_table, figures_text

    with open_db(db, game, digest) as database:
        document = database.info_document()
        depths = database.depth_figures()
    if as_json:
        print_json(document)
        return
    meta, location, size = document, document["location"], document["size_bytes"]
    typer.echo(f"database:       {location}" + (f" ({size:,} bytes)" if size is not None else ""))
    typer.echo(f"schema version: {meta['schema_version']}")
    found, recorded = meta["content_digest"], meta["content_sha256"]
    same = "as its record says" if found == recorded else f"its record says {recorded}: the file changed after it"
    typer.echo(f"content digest: {found} ({same})")
    took = f" in {meta['build_seconds']:,.1f} s" if isinstance(meta.get("build_seconds"), int | float) else ""
    typer.echo(f"built:          {meta['built_at']} by ttt-db {meta['package_version']}{took}")
    rules = meta["rules"]
    typer.echo(
        f"rules:          {rules['game']}: {rules['rows']}x{rules['columns']} board, "
        f"{rules['in_a_row']} in a row, {rules['first']} first"
    )
    plain = meta.get("plain_tables")
    if isinstance(plain, dict):
        rows = ", ".join(f"{table} {entry.get('rows', 0):,} rows" for table, entry in sorted(plain.items()))
        typer.echo(f"plain tables:   {rows} (docs/database.md)")
    else:
        typer.echo("plain tables:   none (build --tables writes them, up to 16 cells)")
    for line in figures_text(meta["figures"]):
        typer.echo(line)
    typer.echo("\n".join(depth_table(depths)))


@app.command()
def verify(
    game: GameOption = None, db: DbOption = None, digest: DigestOption = None, as_json: JsonOption = False
) -> None:
    """Check the file's integrity and content digest, re-derive the figures, cross-check every
    stored row against the rules, its children and its symmetric images, and compare it with a
    fresh solve; exit 1 on any mismatch or damage. A file that passes (read without --digest) has
    its digest recorded, so later reads refuse it if it changes."""
    game = chosen_game(game, db)
    from ttt_db.cli.render import plural
    from ttt_db.store.verify import verify_database

    with open_db(db, game, digest, recorded=False) as database:  # a passing verify records the digest
        report = verify_database(database)
    if as_json:
        print_json(report.to_document())
    else:
        for line in report.damaged_rows:
            typer.echo(f"damaged row: {line}")
        if report.damaged_row_count > len(report.damaged_rows):
            typer.echo(f"({report.damaged_row_count - len(report.damaged_rows):,} more damaged values not shown)")
        for problem in report.problems:
            typer.echo(f"mismatch: {problem}")
        found = plural(report.damaged_row_count, "damaged value") + ", " if report.damaged_row_count else ""
        verdict = "ok" if report.ok else f"FAILED: {found}{plural(len(report.problems), 'mismatch', 'mismatches')}"
        typer.echo(f"{verdict}: {plural(len(report.checks), 'check')}")
        if report.pinned is not None:
            typer.echo(f"pinned: {report.pinned}")
    if not report.ok:
        raise typer.Exit(EXIT_NO)


class ExportFormat(StrEnum):
    jsonl = "jsonl"
    csv = "csv"
    parquet = "parquet"
    uci_endgame = "uci-endgame"


EXPORT_NOTICE_POSITIONS = 1_000_000
"""An export of this many positions or more says so first (and shows its progress)."""


@app.command()
def export(
    format: Annotated[ExportFormat, typer.Option("--format", "-f", help="Output format.")] = ExportFormat.jsonl,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help="Write to this file instead of stdout (with --format parquet: this folder, made if missing).",
        ),
    ] = None,
    depth: Annotated[
        list[int] | None,
        typer.Option(
            "--depth",
            "-d",
            metavar="D",
            help="Only the positions with D marks on the board (repeat for several levels): a level of a "
            "game too large to export whole.",
        ),
    ] = None,
    rows: Annotated[
        RowMode,
        typer.Option(
            "--rows",
            help="positions: every reachable board; classes: each symmetry class once, at its canonical "
            "board (its orbit field counts the boards it stands for).",
        ),
    ] = RowMode.positions,
    game: GameOption = None,
    db: DbOption = None,
    digest: DigestOption = None,
) -> None:
    """Every position (o moved first) as one record, JSON lines or CSV, streamed from the ranked
    core level by level in arrays (a game over 16 cells without random-play odds and paths); --depth
    exports some levels only, --rows classes one row per symmetry class. --format parquet writes a
    data set into the folder -o names: train.parquet and test.parquet (one class in five, by a hash
    of its canonical board), each row with its moves' values and remoteness as arrays over the
    cells, and README.md, its card (pip install 'ttt-db[parquet]'). --format uci-endgame writes
    tic-tac-toe's 958 finished boards as the UCI Tic-Tac-Toe Endgame data set does (x moved first,
    "positive" for a win for x), row for row."""
    game = chosen_game(game, db)
    from ttt_db.outputs.export import uci_endgame_rows, write_lines

    if format is ExportFormat.parquet:
        _export_dataset(output, depth, rows, game, db, digest)
        return
    if output is not None and output.is_dir():
        raise fail(f"{output} is a folder: give a file to write (a folder is for --format parquet)")

    if format is ExportFormat.uci_endgame:
        if game != TICTACTOE:
            raise fail(f"the UCI Tic-Tac-Toe Endgame data set is tic-tac-toe's (3x3k3), not {game}'s")
        if depth or rows is not RowMode.positions:
            given = "--depth" if depth else "--rows classes"
            raise fail(f"the UCI Tic-Tac-Toe Endgame data set is every finished board, one a row: no {given}")
        with open_db(db, game, digest) as database:
            text = "".join(row + "\n" for row in uci_endgame_rows(database.all_positions()))
        write_text_output(text, output, f"{text.count(chr(10)):,} rows")
        return

    with open_db(db, game, digest) as database:
        levels, count = _exported_levels(database, depth, rows)
        what = "classes" if rows is RowMode.classes else "positions"
        if not database.has_extras or count >= EXPORT_NOTICE_POSITIONS:
            extras = "" if database.has_extras else " (without random-play odds and paths)"
            large = ": memory stays flat, the output is large" if count >= EXPORT_NOTICE_POSITIONS else ""
            typer.echo(
                f"exporting {count:,} {what} of {game}, streamed from its core by depth{extras}{large}", err=True
            )
        with progress_bar(count, "export", what.removesuffix("es").removesuffix("s"), quiet=False) as bar:
            blocks = database_rows(database, levels if depth else None, rows, worths=False)  # no line has them
            as_csv = format is ExportFormat.csv
            if output is None:
                sys.stdout.flush()
                write_lines(blocks, sys.stdout.buffer, as_csv=as_csv, counted=bar.update)
                sys.stdout.buffer.flush()
                return
            output.parent.mkdir(parents=True, exist_ok=True)  # as `--db` does for a database file
            with output.open("wb") as stream:
                written = write_lines(blocks, stream, as_csv=as_csv, counted=bar.update)
    typer.echo(f"wrote {written:,} {what} to {output}", err=True)


def _exported_levels(database: SolutionDatabase, depth: list[int] | None, rows: RowMode) -> tuple[list[int], int]:
    """The levels an export writes (`--depth`'s, else every one) and how many rows they hold."""
    figures = database.depth_figures()
    by_depth = [row.canonical_positions if rows is RowMode.classes else row.positions for row in figures]
    levels = database.levels(depth) if depth else list(range(len(by_depth)))
    return levels, sum(by_depth[level] for level in levels if level < len(by_depth))


def _export_dataset(
    output: Path | None, depth: list[int] | None, rows: RowMode, game: Game, db: str | None, digest: str | None
) -> None:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise fail("--format parquet needs pyarrow: pip install 'ttt-db[parquet]'") from None
    from ttt_db.outputs.dataset import refuse_foreign_card, write_dataset

    if output is None:
        raise fail("--format parquet writes a folder (train.parquet, test.parquet, README.md): give it with -o")
    if output.exists() and not output.is_dir():
        raise fail(f"{output} is a file: --format parquet writes a folder")
    refuse_foreign_card(output)
    with open_db(db, game, digest) as database:
        levels, count = _exported_levels(database, depth, rows)
        what = "classes" if rows is RowMode.classes else "positions"
        with progress_bar(count, "export", what.removesuffix("es").removesuffix("s"), quiet=False) as bar:
            summary = write_dataset(
                database_rows(database, levels if depth else None, rows),
                output,
                game,
                mode=rows,
                digest=database.content_digest(),
                counted=bar.update,
            )
    written = ", ".join(f"{summary.rows[split]:,} {split}" for split in summary.rows)
    typer.echo(f"wrote {written} {what} to {output} (train.parquet, test.parquet, README.md)", err=True)


def _register_other_commands() -> None:
    from ttt_db.cli import checks, playing, searches, serve

    checks.register(app)
    playing.register(app)
    searches.register(app)
    serve.register(app)


_register_other_commands()


def app_for(args: Sequence[str]) -> typer.Typer:
    """The app for a command line: holding only the command that `args` start with, when they
    name one (Typer makes every registered command's options as it starts, a command needs only
    its own: its help, output and errors are the same), else the whole app."""
    chosen = [info for info in app.registered_commands if args and _command_name(info) == args[0]]
    if not chosen:
        return app
    narrowed = copy.copy(app)
    narrowed.registered_commands = chosen
    return narrowed


def _command_name(info: CommandInfo) -> str:
    assert info.callback is not None
    return info.name or typer.main.get_command_name(info.callback.__name__)
