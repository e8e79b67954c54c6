"""The census: every m,n,k game up to a number of cells built, its figures recorded, one table.

The games are those with 2 <= rows <= columns, rows x columns <= the limit and 3 <= k <= columns
(a board and its transpose are one game: 4x3k3 is 3x4k3 turned). Each game is built with the one
builder (`build_database`), its statistics counted by the one tallying walk (`solution_stats`,
which holds every level to its children as it reads it), and its row written to the census
folder as `GAME.json` before the next game starts: a finished game is never built again, and a
census that was stopped picks up at the game it was on (whose build resumes from its saved
levels). A game's database is deleted once its row is written unless it is kept. A game this
machine cannot hold (its plan's memory or disk) gets a row that says what it lacks.
"""

from __future__ import annotations

import json
import os
import resource
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from ttt_db.errors import InputError
from ttt_db.game.definition import Game
from ttt_db.game.rules import Value
from ttt_db.store.files import write_bytes_whole
from ttt_db.store.location import default_filename
from ttt_db.version import __version__

if TYPE_CHECKING:
    from ttt_db.build.plan import BuildPlan

CENSUS_MAX_CELLS: Final = 25
"""The largest games this machine's census takes: every game up to 25 cells builds on one machine."""
RECORD_FORMAT: Final = 1

WIKIPEDIA: Final = "Wikipedia, m,n,k-game (after Uiterwijk and van den Herik, 2000)"
FRIEDMAN: Final = "D. Friedman, Optimal mnk-games (2020), an exhaustive search"
LITERATURE: Final = {
    "3x3k3": ("draw", WIKIPEDIA),
    "4x4k4": ("draw", WIKIPEDIA),
    "5x5k4": ("draw", WIKIPEDIA),
    "2x3k3": ("draw", FRIEDMAN),
    "2x4k3": ("draw", FRIEDMAN),
    "2x4k4": ("draw", FRIEDMAN),
    "2x5k3": ("draw", FRIEDMAN),
    "2x5k4": ("draw", FRIEDMAN),
    "2x5k5": ("draw", FRIEDMAN),
    "3x4k3": ("win", FRIEDMAN),
    "3x4k4": ("draw", FRIEDMAN),
    "4x4k3": ("win", FRIEDMAN),
}
"""The empty board's value for the first player where a published source states it."""


def census_games(max_cells: int = CENSUS_MAX_CELLS) -> list[Game]:
    """Every game of the census up to `max_cells` cells, the smallest first (then by rows, k)."""
    if max_cells < 6:
        raise InputError(str(max_cells), "the census starts at 2x3k3: give at least 6 cells")
    games = [
        Game(rows, columns, k)
        for rows in range(2, max_cells + 1)
        for columns in range(rows, max_cells // rows + 1)
        for k in range(3, columns + 1)
    ]
    return sorted(games, key=lambda game: (game.cells, game.rows, game.k))


@dataclass(frozen=True)
class LongestWin:
    """The longest forced win: its plies, and a board (a class's canonical board) that has it."""

    remoteness: int
    depth: int
    board: str


@dataclass(frozen=True)
class CensusRow:
    """One game's figures, or what this machine lacks for it (`lacks`, and no figures)."""

    game: str
    cells: int
    lacks: list[str] = field(default_factory=list)
    value: Value | None = None  # the empty board's, for o (who moves first)
    remoteness: int | None = None  # plies to the end with best play from the empty board
    positions: int | None = None
    classes: int | None = None
    in_play: int | None = None
    decision: int | None = None
    wins: int | None = None  # positions in play won for the side to move
    draws: int | None = None
    losses: int | None = None
    finished: int | None = None
    longest_win: LongestWin | None = None
    winning_first_moves: list[int] = field(default_factory=list)  # o's, from the empty board (where it wins)
    build_cpu_seconds: float | None = None
    build_resumed_at: int | None = None  # the build resumed a stopped one's levels from this depth
    file_bytes: int | None = None
    digest: str | None = None
    seconds: float | None = None  # wall time of the game's build and count in this census
    peak_memory_bytes: int | None = None  # the census process's peak resident memory once the row was taken
    version: str = __version__

    @property
    def solved(self) -> bool:
        return not self.lacks

    def to_document(self) -> dict[str, Any]:
        return {"format": RECORD_FORMAT, **asdict(self)}

    @classmethod
    def from_document(cls, document: dict[str, Any]) -> CensusRow:
        fields = {key: value for key, value in document.items() if key != "format"}
        longest = fields.get("longest_win")
        if longest is not None:
            fields["longest_win"] = LongestWin(**longest)
        return cls(**fields)


CensusProgress = Callable[[str, int, int], None]
"""Called as progress(stage, done, total) within a game: the build's stages, then "counting"."""


def _ignore(stage: str, done: int, total: int) -> None:
    return None


@dataclass(frozen=True)
class CensusFolder:
    """Where a census keeps its rows (`GAME.json`) and, while a game is built, its database."""

    path: Path

    def row_path(self, game: Game) -> Path:
        return self.path / f"{game.name}.json"

    def database_path(self, game: Game) -> Path:
        return self.path / default_filename(game)

    def build_note_path(self, game: Game) -> Path:
        """What a finished build left for the row: its CPU time, should the census stop before it."""
        return self.path / f".{game.name}.build.json"

    def row(self, game: Game) -> CensusRow | None:
        """The game's recorded row, or None (a row that cannot be read is taken again)."""
        try:
            document = json.loads(self.row_path(game).read_text(encoding="utf-8"))
            if document.get("format") != RECORD_FORMAT:
                return None
            row = CensusRow.from_document(document)
        except (OSError, ValueError, TypeError, KeyError):
            return None
        return row if row.game == game.name else None

    def rows(self, games: Iterable[Game]) -> list[CensusRow]:
        return [row for game in games if (row := self.row(game)) is not None]

    def write(self, path: Path, document: dict[str, Any]) -> None:
        data = (json.dumps(document, indent=1) + "\n").encode()
        write_bytes_whole(path, data)


def take_census(
    folder: Path,
    games: Sequence[Game],
    *,
    keep: bool = False,
    starting: Callable[[int, Game, CensusRow | None], None] | None = None,
    progress: CensusProgress = _ignore,
    notice: Callable[[str], None] | None = None,
) -> Iterator[CensusRow]:
    """Each game's row, in order: read from `folder` where recorded, else taken now (built,
    counted, written) and its database deleted unless `keep`. `starting(index, game, row)` is told
    before each game (`row`: its recorded one, which is not taken again)."""
    census = CensusFolder(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for index, game in enumerate(games):
        recorded = census.row(game)
        if starting is not None:
            starting(index, game, recorded)
        if recorded is not None:
            yield recorded
            continue
        row = _take_row(census, game, progress, notice)
        census.write(census.row_path(game), row.to_document())
        if not keep:
            census.database_path(game).unlink(missing_ok=True)
        census.build_note_path(game).unlink(missing_ok=True)
        yield row


def _take_row(
    census: CensusFolder, game: Game, progress: CensusProgress, notice: Callable[[str], None] | None
) -> CensusRow:
    from ttt_db.build.pipeline import build_database
    from ttt_db.build.plan import plan_build
    from ttt_db.outputs.stats import solution_stats
    from ttt_db.store.database import open_database

    started = time.perf_counter()
    db_path = census.database_path(game)
    note_path = census.build_note_path(game)
    note = _build_note(note_path) if db_path.exists() else None
    if note is None:
        planned = plan_build(game, work_dir=census.path, measure=False)
        if planned.lacks:
            return CensusRow(game.name, game.cells, lacks=list(planned.lacks))
        cpu_started = time.process_time()
        summary = build_database(db_path, game=game, progress=progress, notice=notice or _quiet)
        # a database found there unbuilt is an earlier run's, stopped before its note: its time is unknown
        spent = time.process_time() - cpu_started if summary.built else None
        note = {"cpu_seconds": spent, "resumed_at": summary.resumed_at}
        census.write(note_path, note)
    with open_database(db_path, game=game) as database:
        stats = solution_stats(database, lambda done, total: progress(f"counting {game.name}", done, total))
        figures = database.meta()["figures"]
        empty = database.lookup(game.empty_board)
        digest = database.content_digest()
    played = [depth.positions for depth in stats.depths]
    longest = stats.longest_win
    return CensusRow(
        game.name,
        game.cells,
        value=empty.value,
        remoteness=empty.remoteness,
        positions=int(figures["positions"]),
        classes=int(figures["canonical_positions"]),
        in_play=stats.in_play,
        decision=stats.decision,
        wins=sum(depth["win"] for depth in played),
        draws=sum(depth["draw"] for depth in played),
        losses=sum(depth["loss"] for depth in played),
        finished=sum(depth.finished for depth in stats.depths),
        longest_win=None if longest is None else LongestWin(longest.remoteness, longest.depth, longest.board),
        winning_first_moves=list(empty.best_moves) if empty.value == "win" else [],
        build_cpu_seconds=None if note["cpu_seconds"] is None else round(float(note["cpu_seconds"]), 3),
        build_resumed_at=note.get("resumed_at"),
        file_bytes=os.path.getsize(db_path),
        digest=digest,
        seconds=round(time.perf_counter() - started, 3),
        peak_memory_bytes=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
    )


@dataclass(frozen=True)
class CensusPlan:
    """What the games not yet taken need: each one's build plan (memory, disk, CPU measured here),
    and the census's CPU: its process's start once, then each game's build in it
    (`BuildPlan.started_cpu_seconds`) and its statistics walk, counted as long again."""

    plans: list[BuildPlan]
    taken: int  # games already recorded

    @property
    def cpu_seconds(self) -> float:
        start = max((plan.start_cpu_seconds or 0.0 for plan in self.plans), default=0.0)
        return start + 2 * sum(plan.started_cpu_seconds or 0.0 for plan in self.plans)

    @property
    def peak_memory(self) -> int:
        return max((plan.memory for plan in self.plans), default=0)

    def disk(self, *, keep: bool) -> int:
        """The most disk a census holds at once: the largest game's work folder and database, or
        (`keep`) every database and the last work folder."""
        if not self.plans:
            return 0
        if keep:
            return sum(plan.result_disk for plan in self.plans) + max(plan.work_disk for plan in self.plans)
        return max(plan.work_disk + plan.result_disk for plan in self.plans)

    def to_document(self, *, keep: bool) -> dict[str, Any]:
        return {
            "taken": self.taken,
            "games": [plan.to_document() for plan in self.plans],
            "cpu_seconds": self.cpu_seconds,
            "peak_memory_bytes": self.peak_memory,
            "disk_bytes": self.disk(keep=keep),
            "lacking": [plan.game.name for plan in self.plans if plan.lacks],
        }


def plan_census(folder: Path, games: Sequence[Game], progress: Callable[[int, int], None] | None = None) -> CensusPlan:
    """The plan of every game of `games` that `folder` has no row for (`plan_build`, timed on
    this machine), `progress(planned, to plan)` told after each."""
    from ttt_db.build.plan import plan_build

    census = CensusFolder(folder)
    left = [game for game in games if census.row(game) is None]
    plans = []
    for done, game in enumerate(left, 1):
        plans.append(plan_build(game, work_dir=folder))
        if progress is not None:
            progress(done, len(left))
    return CensusPlan(plans, len(games) - len(left))


def _quiet(line: str) -> None:
    return None


def _build_note(path: Path) -> dict[str, Any] | None:
    try:
        note = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return note if isinstance(note, dict) and isinstance(note.get("cpu_seconds"), int | float | None) else None


def census_document(rows: Sequence[CensusRow], max_cells: int) -> dict[str, Any]:
    """`census --json`: the limit, how many games it holds, and the rows taken so far."""
    return {"max_cells": max_cells, "games": len(census_games(max_cells)), "rows": [row.to_document() for row in rows]}


def rows_of_document(document: dict[str, Any]) -> tuple[list[CensusRow], int]:
    """The rows and the limit of a `census_document`."""
    return [CensusRow.from_document(row) for row in document["rows"]], int(document["max_cells"])


CENSUS_BEGIN: Final = "<!-- census: written by ttt-db census --markdown; edit the command, not the table -->"
CENSUS_END: Final = "<!-- census: end -->"


def census_markdown(rows: Sequence[CensusRow], games: Sequence[Game]) -> str:
    """The census as Markdown: a table per k of the games' rows (smallest first), the games that
    do not fit this machine with what they lack, and those not yet taken."""
    by_name = {row.game: row for row in rows}
    lines = [
        CENSUS_BEGIN,
        "",
        f"{sum(row.solved for row in rows)} of {len(games)} games solved here "
        f"(2 <= rows <= columns, rows x columns <= {max(game.cells for game in games)}, 3 <= k <= columns; "
        "a board and its transpose are one game). Values are o's from the empty board, o moving first; "
        "positions in play are counted by their value for the side to move; a longest forced win is "
        "the most plies any won position in play needs, at a board that has it.",
    ]
    for k in sorted({game.k for game in games}):
        solved = [by_name[game.name] for game in games if game.k == k and game.name in by_name]
        solved = [row for row in solved if row.solved]
        if not solved:
            continue
        lines += [
            "",
            f"### k = {k}",
            "",
            "| game | empty board | published | positions | classes | in play: win / draw / loss "
            "| decision | longest forced win | o's winning first moves | build CPU | file | content digest |",
            "| --- | --- | --- | ---: | ---: | ---: | ---: | --- | --- | ---: | ---: | --- |",
            *(_table_row(row) for row in solved),
        ]
    timed = [row for row in rows if row.seconds is not None]
    if timed:
        from ttt_db.build.plan import duration_text, size_text

        lines += [
            "",
            f"The run here: {duration_text(sum(row.seconds or 0.0 for row in timed))} of wall time for "
            f"{len(timed)} games (building and counting each), peak memory "
            f"{size_text(max(row.peak_memory_bytes or 0 for row in timed))}.",
        ]
    unfit = [row for row in rows if not row.solved]
    if unfit:
        lines += ["", "Not built here (what this machine lacks):", ""]
        lines += [f"- {row.game}: {'; '.join(row.lacks)}" for row in unfit]
    missing = [game.name for game in games if game.name not in by_name]
    if missing:
        lines += ["", f"Not yet taken ({len(missing)}): {', '.join(missing)}."]
    return "\n".join([*lines, "", CENSUS_END])


def _table_row(row: CensusRow) -> str:
    from ttt_db.build.plan import duration_text, size_text

    game = Game.parse(row.game)
    known = LITERATURE.get(row.game)
    published = "" if known is None else f"{known[0]} ({known[1].split(',')[0]})"
    longest = row.longest_win
    cells = [
        f"`{row.game}`",
        _empty_board(row),
        published,
        f"{row.positions:,}",
        f"{row.classes:,}",
        f"{row.wins:,} / {row.draws:,} / {row.losses:,}",
        f"{row.decision:,}",
        "none" if longest is None else f"{_plies(longest.remoteness)} at `{longest.board}`",
        " ".join(game.move_name(move) for move in row.winning_first_moves) or "-",
        "?" if row.build_cpu_seconds is None else duration_text(row.build_cpu_seconds),
        size_text(row.file_bytes or 0),
        f"`{(row.digest or '')[:16]}`",
    ]
    return "| " + " | ".join(cells) + " |"


def _empty_board(row: CensusRow) -> str:
    plies = _plies(row.remoteness or 0)
    if row.value == "win":
        return f"o wins in {plies}"
    if row.value == "loss":
        return f"x wins in {plies}"
    return f"draw ({plies})"


def _plies(count: int) -> str:
    return f"{count} ply" if count == 1 else f"{count} plies"


def with_census(text: str, section: str) -> str:
    """`text` (a Markdown document) with its census section replaced by `section`, or `section`
    added at its end where it has none."""
    begin, end = text.find(CENSUS_BEGIN), text.find(CENSUS_END)
    if begin < 0 or end < begin:
        return text.rstrip("\n") + "\n\n" + section + "\n"
    return text[:begin] + section + text[end + len(CENSUS_END) :]
