"""Issue 60: the census of every m,n,k game up to a number of cells. Its rows are held to the
reference solver, it goes on where it was stopped without building a finished game again, and it
says what a game lacks rather than skipping it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import reference
from typer.testing import CliRunner

from ttt_db.build import census as census_module
from ttt_db.build import pipeline
from ttt_db.build.census import (
    CENSUS_BEGIN,
    CENSUS_END,
    CensusFolder,
    CensusRow,
    census_games,
    census_markdown,
    take_census,
)
from ttt_db.cli.app import app
from ttt_db.game.definition import Game

SMALL = ["2x3k3", "2x4k3", "2x4k4", "3x3k3", "2x5k3"]


def test_the_games_are_every_board_once_with_every_k_from_3() -> None:
    games = census_games(25)
    names = {game.name for game in games}
    assert len(games) == len(names) == 88  # the count issue 60 states
    assert all(2 <= g.rows <= g.columns and g.cells <= 25 and 3 <= g.k <= g.columns for g in games)
    assert {"3x3k3", "5x5k4", "2x12k12", "3x8k8"} <= names
    assert not {"4x3k3", "3x3k2", "5x6k4", "1x9k3"} & names  # a transpose, k 2, over 25 cells, one row
    assert [g.cells for g in games] == sorted(g.cells for g in games)
    assert [g.name for g in census_games(9)] == ["2x3k3", "2x4k3", "2x4k4", "3x3k3"]


def census_figures(row: CensusRow) -> dict[str, object]:
    """A census row's figures as `reference.census_row` gives them."""
    longest = row.longest_win
    return {
        "value": row.value,
        "remoteness": row.remoteness,
        "positions": row.positions,
        "classes": row.classes,
        "wins": row.wins,
        "draws": row.draws,
        "losses": row.losses,
        "decision": row.decision,
        "longest": None if longest is None else longest.remoteness,
        "winning_first_moves": row.winning_first_moves,
    }


def test_each_row_is_the_reference_solvers(tmp_path: Path) -> None:
    games = [Game.parse(name) for name in SMALL]
    rows = list(take_census(tmp_path, games))
    assert [row.game for row in rows] == SMALL
    for row in rows:
        game = Game.parse(row.game)
        rules = reference.Rules(game.rows, game.columns, game.k)
        assert census_figures(row) == reference.census_row(rules), row.game
        longest = row.longest_win
        assert longest is not None and reference.solver(rules)(longest.board).remoteness == longest.remoteness
        assert row.digest is not None and len(row.digest) == 64 and row.file_bytes
        assert row.seconds is not None and row.seconds > 0 and (row.peak_memory_bytes or 0) > 10**6
        assert not CensusFolder(tmp_path).database_path(game).exists()  # deleted once its row is written


def test_a_stopped_census_goes_on_without_building_a_finished_game_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    games = [Game.parse(name) for name in SMALL[:4]]
    built: list[str] = []
    build = pipeline.build_database
    monkeypatch.setattr(pipeline, "build_database", lambda db, **kw: built.append(kw["game"].name) or build(db, **kw))

    def stop_at_third(index: int, game: Game, recorded: object) -> None:
        if index == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        list(take_census(tmp_path, games, starting=stop_at_third))
    assert built == SMALL[:2]
    seen: list[tuple[str, bool]] = []
    rows = list(take_census(tmp_path, games, keep=True, starting=lambda i, g, r: seen.append((g.name, r is not None))))
    assert built == SMALL[:4]
    assert seen == [(name, i < 2) for i, name in enumerate(SMALL[:4])]
    assert [row.game for row in rows] == SMALL[:4]
    assert CensusFolder(tmp_path).database_path(games[3]).exists()  # --keep


def test_a_game_this_machine_cannot_hold_is_listed_with_what_it_lacks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ttt_db.build import plan

    real = plan.plan_build

    def short_of_memory(game: Game, **options: object):  # type: ignore[no-untyped-def]
        planned = real(game, **options)  # type: ignore[arg-type]
        if game.name == "2x4k4":
            planned.lacks.append("memory: 9 TB for the build; 23 GB here")
        return planned

    monkeypatch.setattr(plan, "plan_build", short_of_memory)
    games = [Game.parse(name) for name in SMALL[:3]]
    rows = list(take_census(tmp_path, games))
    assert [row.solved for row in rows] == [True, True, False]
    text = census_markdown(rows, [*games, Game.parse("3x3k3")])
    assert "- 2x4k4: memory: 9 TB for the build; 23 GB here" in text
    assert "Not yet taken (1): 3x3k3." in text
    assert "for 2 games (building and counting each), peak memory" in text
    assert "| `2x4k3` | draw (8 plies) | draw (D. Friedman) | 2,045 |" in text
    assert census_module.LITERATURE["2x4k3"][0] == rows[1].value


def test_the_command_prints_rows_and_rewrites_only_its_section(tmp_path: Path) -> None:
    page = tmp_path / "games.md"
    page.write_text("# Games\n\nKept above.\n", encoding="utf-8")
    folder = tmp_path / "census"
    for _ in range(2):
        result = CliRunner().invoke(
            app, ["census", "--max-cells", "8", "--folder", str(folder), "--markdown", str(page), "--json", "-q"]
        )
        assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert (document["max_cells"], document["games"]) == (8, 3)
    assert [row["game"] for row in document["rows"]] == ["2x3k3", "2x4k3", "2x4k4"]
    text = page.read_text(encoding="utf-8")
    assert text.startswith("# Games\n\nKept above.\n") and text.count(CENSUS_BEGIN) == text.count(CENSUS_END) == 1
    plain = CliRunner().invoke(app, ["census", "--max-cells", "8", "--folder", str(folder), "-q"])
    assert plain.exit_code == 0 and "2x4k3    draw, 8 plies" in plain.stdout
    planned = CliRunner().invoke(app, ["census", "--max-cells", "9", "--folder", str(folder), "--plan", "-q"])
    assert planned.exit_code == 0 and "3 games recorded already; 1 to take:" in planned.stdout
    assert "3x3k3" in planned.stdout
    shown = CliRunner().invoke(app, ["census", "--max-cells", "9", "--folder", str(folder), "--recorded", "--json"])
    shown_rows = json.loads(shown.stdout)["rows"]
    assert [row["game"] for row in shown_rows] == ["2x3k3", "2x4k3", "2x4k4"]  # 3x3k3 not taken
    refused = CliRunner().invoke(app, ["census", "--max-cells", "5", "--folder", str(folder)])
    assert refused.exit_code == 2


def test_a_plan_counts_its_process_start_once_however_many_games_it_planned_before() -> None:
    """A census plans every game in one process: a later game's start is the process's, not the
    process's work so far (which once made the plan of 3x4k4 ten times its build), and the census's
    CPU counts that start once."""
    import time

    from ttt_db.build.census import CensusPlan
    from ttt_db.build.plan import plan_build

    first = plan_build(Game.parse("2x4k3"))
    busy = time.process_time() + 0.3
    while time.process_time() < busy:  # work done between two plans: a start that counted it would grow
        pass
    later = plan_build(Game.parse("2x5k4"))
    assert first.start_cpu_seconds is not None and first.start_cpu_seconds == later.start_cpu_seconds
    assert first.cpu_seconds == pytest.approx(first.start_cpu_seconds + (first.started_cpu_seconds or 0.0))
    census = CensusPlan([first, later], taken=0)
    own = [plan.started_cpu_seconds or 0.0 for plan in (first, later)]
    assert census.cpu_seconds == pytest.approx(first.start_cpu_seconds + 2 * sum(own))
