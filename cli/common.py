"""What every command shares: the `--db` and `--json` options, opening the database (building
it on first use), printing JSON, and turning expected errors into `error: ...` and exit 2."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from ttt_db.errors import TttDbError

if TYPE_CHECKING:
    from ttt_db.database import SolutionDatabase

EXIT_NO = 1
EXIT_USAGE = 2

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
JsonOption = Annotated[
    bool, typer.Option("--json", help="Print one JSON document on stdout and nothing else there.")
]

F = TypeVar("F", bound=Callable[..., Any])


def fail(message: str, code: int = EXIT_USAGE) -> typer.Exit:
    """Print `error: message` on stderr; raise the returned Exit to leave with `code`."""
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code)


def _is_database_error(error: Exception) -> bool:
    """An SQLAlchemy error (a bad URL, a locked or unreadable database), without importing it."""
    return type(error).__module__.startswith("sqlalchemy.")


def handle_errors(command: F) -> F:
    """Expected errors (bad boards, moves, AIs, files, databases) become one line and exit 2."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except BrokenPipeError:
            sys.stderr.close()  # the reader went away (`| head`): stop quietly
            raise typer.Exit(0) from None
        except (TttDbError, ValueError, OSError) as error:
            raise fail(str(error)) from None
        except Exception as error:
            if _is_database_error(error):
                raise fail(f"database error: {error}".splitlines()[0]) from None
            raise

    return wrapper  # type: ignore[return-value]


def print_json(document: Any) -> None:
    typer.echo(json.dumps(document, indent=2))


def progress_reporter(enabled: bool) -> Callable[[str, int, int], None]:
    """A `progress(stage, done, total)` callback drawing one tqdm bar per stage on stderr."""
    if not enabled:
        return lambda stage, done, total: None
    from tqdm import tqdm

    bars: dict[str, Any] = {}

    def report(stage: str, done: int, total: int) -> None:
        bar = bars.get(stage)
        if bar is None:
            bar = bars[stage] = tqdm(
                total=total, desc=f"{stage:<9}", file=sys.stderr, leave=True,
                bar_format="{desc} {percentage:3.0f}%|{bar:20}| {n_fmt}/{total_fmt} [{elapsed}]",
            )
        bar.n = done
        bar.refresh()
        if done >= total:
            bar.close()

    return report


def open_db(db: str | None) -> SolutionDatabase:
    """Open the database, building it first (with a notice on stderr) when it is missing."""
    from builder.pipeline import open_or_build

    return open_or_build(db, notice=lambda message: typer.echo(message, err=True))
