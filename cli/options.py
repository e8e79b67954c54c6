"""The options the commands share: `--db`, `--digest`, `--game`, `--json`, `--quiet`, `--first`,
the AI limits (`--timeout`, `--import-timeout`, `--memory`, `--processes`), the BOARD argument."""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ttt_db.ais.limits import DEFAULT_USER_ANSWER_SECONDS, WAITING_NOTICE_SECONDS
from ttt_db.errors import InputError
from ttt_db.game.definition import Game
from ttt_db.game.rules import Mark
from ttt_db.ranked.slots import game_from_name

if TYPE_CHECKING:
    pass


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
