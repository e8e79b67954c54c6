"""The one place where a command's end becomes an exit code: the codes, `fail`, every
exception as one `error: ...` line (`error_line`, `App`), `--debug`, and boards that start with
`-` read as the BOARD argument (`BoardCommand`)."""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import typer
from typer.core import TyperCommand, TyperGroup

from ttt_db.errors import ImpossibleBoardError, TttDbError

try:  # Typer 0.28 ships its own copy of Click
    from typer._click import exceptions as click_exceptions
except ImportError:  # pragma: no cover - older Typer depends on Click itself
    from click import exceptions as click_exceptions  # type: ignore[no-redef]

if TYPE_CHECKING:
    pass


EXIT_NO = 1
EXIT_USAGE = 2
EXIT_BUG = 3
EXIT_UNDECIDED = 4
EXIT_INTERRUPTED = 130
DEBUG_ENV_VAR = "TTT_DB_DEBUG"


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
