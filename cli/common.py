"""What every command shares: the options (`--db`, `--json`, `--first`, `--quiet`), opening the
database (building it on first use), printing JSON, progress bars, and the one place where
errors become an `error: ...` line and an exit code."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Final, TypeAlias

import typer
from typer.core import TyperCommand, TyperGroup

from ttt_db.ais.limits import DEFAULT_USER_ANSWER_SECONDS, WAITING_NOTICE_SECONDS
from ttt_db.errors import ImpossibleBoardError, InputError, TttDbError
from ttt_db.game.definition import DEFAULT_GAME, Game
from ttt_db.game.rules import Mark
from ttt_db.ranked.slots import game_from_name

try:  # Typer 0.28 ships its own copy of Click
    from typer._click import exceptions as click_exceptions
except ImportError:  # pragma: no cover - older Typer depends on Click itself
    from click import exceptions as click_exceptions  # type: ignore[no-redef]

if TYPE_CHECKING:
    from tqdm import tqdm

    from ttt_db.store.database import SolutionDatabase

EXIT_NO = 1
EXIT_USAGE = 2
EXIT_BUG = 3
EXIT_UNDECIDED = 4
EXIT_INTERRUPTED = 130
DEBUG_ENV_VAR = "TTT_DB_DEBUG"
AI_HELP = (
    "A built-in AI (see `ttt-db ais`), package.module:function, or a policy file (policy.json: boards and "
    "their move probabilities)."
)


class Side(StrEnum):
    o = "o"
    x = "x"

    @property
    def mark(self) -> Mark:
        return "o" if self is Side.o else "x"


def first_mark(first: Side | None) -> Mark | None:
    """The `--first` option as a mark, None when not given."""
    return None if first is None else first.mark


DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        metavar="PATH|URL",
        envvar="TTT_DB",
        show_envvar=True,
        help="Database file path or SQLAlchemy URL [default: data/ttt-db.sqlite in the project].",
    ),
]
DigestOption = Annotated[
    str | None,
    typer.Option(
        "--digest",
        metavar="SHA256",
        show_default=False,
        help="Refuse the database unless its content digest is this one (`ttt-db info` shows a database's) "
        "[default: $TTT_DB_DIGEST, else the digest recorded when this file was built, fetched or verified].",
    ),
]


def _parse_game(text: str | Game) -> Game:
    if isinstance(text, Game):
        return text
    try:
        return game_from_name(text)
    except InputError as error:
        raise typer.BadParameter(error.reason) from None


def _parse_any_game(text: str | Game) -> Game:
    if isinstance(text, Game):
        return text
    try:
        return Game.parse(text)
    except InputError as error:
        raise typer.BadParameter(error.reason) from None


AnyGameOption = Annotated[
    Game,
    typer.Option(
        "--game",
        "-g",
        metavar="RxCkK",
        parser=_parse_any_game,
        help="The m,n,k-game: R rows x C columns, K in a row wins, o first (3x3k3, 4x4k4, 3x4k3, ...); "
        "each game has its own database [default: 3x3k3]. --plan takes any size.",
        show_default=False,
    ),
]
GameOption = Annotated[
    Game | None,
    typer.Option(
        "--game",
        "-g",
        metavar="RxCkK",
        parser=_parse_game,
        help="The m,n,k-game: R rows x C columns, K in a row wins, o first (3x3k3, 4x4k4, 3x4k3, ...); "
        "each game has its own database [default: the game of the file --db names, else 3x3k3].",
        show_default=False,
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON document on stdout and nothing else there.")]
ProcessesOption = Annotated[
    int | None,
    typer.Option(
        "--processes",
        min=1,
        show_default=False,
        metavar="N",
        help="With BOARD -, how many processes answer a large batch (this one and N - 1 helpers, each "
        "with the database open): by default one per core, at most 4; 1 answers in this process alone.",
    ),
]
QuietOption = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]
TimeoutOption = Annotated[
    float | None,
    typer.Option(
        "--timeout",
        min=0.001,
        metavar="SECONDS",
        help="Fail an AI at any board it takes longer than this to answer [default: no limit for a built-in AI, "
        f"{DEFAULT_USER_ANSWER_SECONDS:g} s for a user AI (module:function), whose wait is said every "
        f"{WAITING_NOTICE_SECONDS:g} s].",
    ),
]
ImportTimeoutOption = Annotated[
    float,
    typer.Option(
        "--import-timeout",
        min=0.001,
        metavar="SECONDS",
        help="How long a user AI (module:function) may take to import; its first answer has what is "
        "left of it and one --timeout: longer for a bot that trains or loads a model when imported or on first use.",
    ),
]


def max_seconds_option(help_text: str) -> Any:
    """`--max-seconds S`, the one spelling of a time budget (check, score, search), with its own help."""
    return typer.Option("--max-seconds", min=0.001, metavar="S", help=help_text, show_default=False)


def max_boards_option(help_text: str) -> Any:
    """`--max-boards N`, the one spelling of a budget of boards an AI is asked at (check, score)."""
    return typer.Option("--max-boards", min=0, metavar="N", help=help_text, show_default=False)


MemoryOption = Annotated[
    int,
    typer.Option(
        "--memory",
        min=16,
        metavar="MB",
        help="A user AI (module:function) runs in a process of its own with at most this much memory.",
    ),
]
FirstOption = Annotated[
    Side | None,
    typer.Option(
        "--first",
        case_sensitive=False,
        show_default=False,
        help="Who moved first. By default the side with more marks; o when the counts are equal.",
    ),
]
BoardArgument = Annotated[
    str,
    typer.Argument(
        metavar="BOARD",
        show_default=False,
        help="The game's cells in reading order, e.g. ox..x.... or 'ox./.x./...' on 3x3 "
        "(. - _ or space for empty, / between rows).",
    ),
]


def fail(message: str, code: int = EXIT_USAGE) -> typer.Exit:
    """Print `error: message` on stderr; raise the returned Exit to leave with `code`."""
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code)


def _is_database_error(error: BaseException) -> bool:
    """An SQLAlchemy error (a bad URL, a locked or unreadable database), without importing it."""
    return type(error).__module__.startswith("sqlalchemy.")


def _file_error_message(error: OSError) -> str:
    reason = (error.strerror or str(error)).lower()
    return f"{error.filename}: {reason}" if error.filename else reason


def error_line(error: BaseException) -> tuple[str, int]:
    """The `error: ...` text and exit code for an exception that left a command: 2 for the
    project's own errors and file or database errors, 3 for anything else (a bug)."""
    if isinstance(error, ImpossibleBoardError) and error.reachable_with_first:
        return f"{error}; try --first {error.reachable_with_first}", EXIT_USAGE
    if isinstance(error, TttDbError):
        return str(error), EXIT_USAGE
    if isinstance(error, OSError):
        return _file_error_message(error), EXIT_USAGE
    if _is_database_error(error):
        return f"database error: {error}".splitlines()[0], EXIT_USAGE
    return (
        f"internal error, a bug in ttt-db: {type(error).__name__}: {error} (run with --debug for the traceback)"
    ), EXIT_BUG


class DebugSwitch:
    """`ttt-db --debug` (or TTT_DB_DEBUG=1): show the traceback of a bug instead of one line."""

    on = False

    @classmethod
    def wanted(cls) -> bool:
        return cls.on or bool(os.environ.get(DEBUG_ENV_VAR))


def _usage_line(error: Any) -> str:
    message = str(error.format_message()).replace("\n", " ").strip().rstrip(".")
    message = message[:1].lower() + message[1:]
    context = getattr(error, "ctx", None)
    if context is not None:
        message += f" (see '{context.command_path} --help')"
    return message


class App(TyperGroup):
    """The `ttt-db` group: every failure, usage errors included, ends as one `error: ...` line
    on stderr and an exit code (docs/cli.md), instead of Click's usage box or a traceback."""

    def main(  # type: ignore[override]
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        code = self._run(args, prog_name, complete_var, **extra)
        if standalone_mode:
            sys.exit(code)
        return code

    def _run(self, args: Sequence[str] | None, prog_name: str | None, complete_var: str | None, **extra: Any) -> int:
        DebugSwitch.on = False
        try:
            result = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click_exceptions.NoArgsIsHelpError as error:
            typer.echo(error.ctx.get_help())
            return 0
        except click_exceptions.UsageError as error:
            typer.echo(f"error: {_usage_line(error)}", err=True)
            return EXIT_USAGE
        except click_exceptions.ClickException as error:
            typer.echo(f"error: {error.format_message()}", err=True)
            return error.exit_code
        except (typer.Abort, KeyboardInterrupt):
            typer.echo("", err=True)
            return EXIT_INTERRUPTED
        except BrokenPipeError:
            _silence_broken_pipe()
            return 0
        except Exception as error:
            message, code = error_line(error)
            if code == EXIT_BUG and DebugSwitch.wanted():
                traceback.print_exc()
            typer.echo(f"error: {message}", err=True)
            return code
        if result == EXIT_INTERRUPTED:  # Typer turns Ctrl-C into Exit(130): end the line
            typer.echo("", err=True)
        return result if isinstance(result, int) else 0


def _silence_broken_pipe() -> None:
    """The reader went away (`| head`): stop quietly, without Python's closing complaint."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


_BOARD_CHARS = frozenset("oOxX.-_ /")


def boards_as_arguments(command: Any, args: list[str]) -> list[str]:
    """Move tokens that start with `-` but are boards (`---------`, `-x-/---/o--`) behind `--`,
    so Click reads them as the BOARD argument instead of refusing an unknown option."""
    options = [p for p in command.params if p.param_type_name == "option"]
    names = {name for p in options for name in (*p.opts, *p.secondary_opts)}
    with_value = {name for p in options if not (p.is_flag or p.count) for name in p.opts}
    kept: list[str] = []
    boards: list[str] = []
    index = 0
    while index < len(args):
        token = args[index]
        if token == "--":
            kept.extend(args[index:])
            break
        if token in with_value:
            kept.extend(args[index : index + 2])
            index += 2
            continue
        if len(token) > 1 and token[0] == "-" and token not in names and set(token) <= _BOARD_CHARS:
            boards.append(token)
        else:
            kept.append(token)
        index += 1
    if boards:
        kept += ["--", *boards] if "--" not in kept else boards
    return kept


class BoardCommand(TyperCommand):
    """A command with a BOARD argument, which may start with `-`."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        return super().parse_args(ctx, boards_as_arguments(self, args))


def ai_output_to_stderr() -> contextlib.AbstractContextManager[Any]:
    """While AIs (foreign code) run, what they print goes to stderr: stdout is the command's."""
    return contextlib.redirect_stdout(sys.stderr)


def say_waiting(line: str) -> None:
    """What a caller waiting on a user AI's answer is told (`contained_ai`'s `waiting`), on stderr."""
    typer.echo(line, err=True)


def write_text_output(text: str, output: Path | None, written: str) -> None:
    """`text` to stdout, or to `output` (its folder made if missing, as for `--db`), then
    "wrote {written} to {output}" on stderr."""
    if output is None:
        sys.stdout.write(text)
        return
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(text, encoding="utf-8")
    typer.echo(f"wrote {written} to {output}", err=True)


LINE_BYTES: Final = 1 << 16
"""The most bytes of a line of input that `ArrivedLines` keeps (a board or a record is far less)."""


class ArrivedLines:
    """The non-blank lines of a byte stream, stripped, in groups of what has arrived together: a
    pipe written a line at a time is answered a line at a time, a file many lines at once. Bytes
    that are not UTF-8 are replaced (the line is then refused as a board, quoted). `more_arrived()`:
    whether more can be read without waiting (never, for a stream that is not a file: a test's is
    read whole at once). A line is kept to its first LINE_BYTES bytes (the rest is skipped as it
    comes, so that one endless line costs neither memory nor time): it is then refused, quoted cut."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        try:
            self.descriptor: int | None = stream.fileno()
        except (OSError, ValueError, AttributeError):
            self.descriptor = None

    def __iter__(self) -> Iterator[list[str]]:
        descriptor, pending = self.descriptor, b""
        while data := self.stream.read() if descriptor is None else _arrived(descriptor):
            *complete, rest = data.split(b"\n")
            if complete:
                complete[0], pending = pending + complete[0][: LINE_BYTES - len(pending)], b""
            if len(pending) < LINE_BYTES:  # a line past LINE_BYTES: the rest of it skipped as it comes
                pending += rest[: LINE_BYTES - len(pending)]
            lines = [text for line in complete if (text := line[:LINE_BYTES].decode("utf-8", "replace").strip())]
            if lines:
                yield lines
            if descriptor is None:
                break
        if rest_text := pending.decode("utf-8", "replace").strip():
            yield [rest_text]

    def more_arrived(self) -> bool:
        return self.descriptor is not None and _readable(self.descriptor)


def _arrived(descriptor: int, most: int = 1 << 18) -> bytes:
    """What a descriptor has: waits for some bytes, then takes what else is there already (up to
    about `most`) without waiting again. b"" at its end."""
    data = os.read(descriptor, 1 << 16)
    while data and len(data) < most and _readable(descriptor):
        more = os.read(descriptor, 1 << 16)
        if not more:
            break  # its end: the next read says so
        data += more
    return data


def _readable(descriptor: int) -> bool:
    """Whether a read of the descriptor would not wait; False for one select cannot watch (its
    reader then takes what each read gives, waiting as it must)."""
    import select

    try:
        return bool(select.select([descriptor], [], [], 0)[0])
    except (OSError, ValueError):
        return False


def print_json(document: Any) -> None:
    """The document on stdout, written as it is encoded (a check's thousands of failures are
    never one string in memory)."""
    for chunk in json.JSONEncoder(indent=2).iterencode(document):
        sys.stdout.write(chunk)
    sys.stdout.write("\n")
    sys.stdout.flush()


class SilentBar:
    """What a command sees of a progress bar that will not be shown (quiet, or stderr is not
    a terminal): the same counters, without importing tqdm (a noticeable part of a command's start)."""

    def __init__(self, total: int | None, desc: str) -> None:
        self.n = 0
        self.total = total
        self.desc = desc

    def update(self, count: int = 1) -> None:
        self.n += count

    def reset(self, total: int | None = None) -> None:
        self.n, self.total = 0, total

    def set_description_str(self, desc: str, refresh: bool = True) -> None:
        self.desc = desc

    def close(self) -> None:
        return None


class LineBar(SilentBar):
    """The progress bar where stderr is a file or a pipe: a plain line, at most every
    LINE_SECONDS, once the work has taken that long: the count, the total, the rate and the time
    left when the total is known."""

    LINE_SECONDS: ClassVar[float] = 10.0
    now = staticmethod(time.monotonic)

    def __init__(self, total: int | None, desc: str, unit: str) -> None:
        super().__init__(total, desc)
        self.unit = unit
        self._started = self._said = self.now()

    def reset(self, total: int | None = None) -> None:
        super().reset(total)
        self._started = self._said = self.now()

    def update(self, count: int = 1) -> None:
        super().update(count)
        now = self.now()
        if now - self._said >= self.LINE_SECONDS:
            self._said = now
            sys.stderr.write(self.line(now - self._started) + "\n")
            sys.stderr.flush()

    def line(self, elapsed: float) -> str:
        rate = self.n / elapsed if elapsed > 0 else 0.0
        done = f"{self.n:,}"
        if self.total:
            done += f"/{self.total:,} {self.unit}s ({100 * self.n / self.total:.1f}%)"
        else:
            done += f" {self.unit}s"
        line = f"{self.desc}: {done}, {clock(elapsed)} elapsed, {self._rate(rate)}"
        if self.total and rate > 0:
            line += f", about {clock((self.total - self.n) / rate)} left"
        return line

    def _rate(self, rate: float) -> str:
        """As tqdm writes it: units per second, or seconds per unit below one a second."""
        if rate >= 10:
            return f"{rate:,.0f} {self.unit}s/s"
        if rate >= 1:
            return f"{rate:.1f} {self.unit}s/s"
        return f"{1 / rate:,.1f} s/{self.unit}" if rate > 0 else f"no {self.unit} done yet"


ProgressBar: TypeAlias = "tqdm[Any] | SilentBar"
"""What `progress_bar` yields: tqdm's bar on a terminal, a counter (and lines) elsewhere."""


def clock(seconds: float) -> str:
    """A duration as h:mm:ss or m:ss, as tqdm writes it."""
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


@contextmanager
def progress_bar(total: int | None, desc: str, unit: str, *, quiet: bool) -> Iterator[ProgressBar]:
    """The one progress-bar style: on stderr, when the work takes longer than a second; on a
    terminal a bar erased when done, elsewhere a plain line every few seconds (`LineBar`)."""
    if quiet:
        yield SilentBar(total, desc)
        return
    if not sys.stderr.isatty():
        yield LineBar(total, desc, unit)
        return
    from tqdm import tqdm

    bar = tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, leave=False, delay=1.0, dynamic_ncols=True)
    try:
        yield bar
    finally:
        bar.close()


@contextmanager
def stage_progress(*, quiet: bool) -> Iterator[Callable[[str, int, int], None]]:
    """A `progress(stage, done, total)` callback for the builder: one count per stage, started
    again (its rate and time left with it) when the total changes or the count goes back; the stage's
    name may change as it goes (the level being solved)."""
    with progress_bar(None, "build", "step", quiet=quiet) as bar:

        def report(stage: str, done: int, total: int) -> None:
            if bar.total != total or done < bar.n:
                bar.reset(total=total)
            if bar.desc != stage:
                bar.set_description_str(stage, refresh=False)
            bar.update(done - bar.n)

        yield report


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
