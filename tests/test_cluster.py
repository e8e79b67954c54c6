"""The level solve on Dask: a real LocalCluster of worker processes on 127.0.0.1 builds the same
database as the in-process builder, a worker killed in the middle of a level costs only its task,
a build stopped as a whole resumes; and `build --plan` derives its figures from the slot counts.
(The cluster's tests skip, saying why, without Dask; CI installs it.)"""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from math import comb
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ttt_db.build import build_database
from ttt_db.build.cluster import DaskLevels, solve_task
from ttt_db.build.plan import plan_levels
from ttt_db.game.definition import Game
from ttt_db.ranked.backend import compiled
from ttt_db.ranked.slots import level_work
from ttt_db.ranked.step import solve_core
from ttt_db.ranked.tables import RankedTables


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    pytest.importorskip("distributed", reason="Dask is not installed: pip install -e '.[dask]'")
    from ttt_db.build.cluster import connect

    with connect(2, None) as opened:
        assert len(opened.scheduler_info()["workers"]) == 2
        yield opened
        opened.cluster.close()


def _dask_settings(names: list[str]) -> dict[str, Any]:
    import dask

    return {name: dask.config.get(name) for name in names}


def test_the_workers_it_starts_run_without_dasks_profiler_and_frequent_monitors(client: Any) -> None:
    from ttt_db.build.cluster import QUIET

    found = client.run(_dask_settings, list(QUIET))
    assert len(found) == 2 and all(settings == QUIET for settings in found.values())


def _files_equal(one: Path, other: Path) -> bool:
    return one.read_bytes() == other.read_bytes()


@pytest.mark.parametrize("name", ["3x4k3", "4x4k4"])
def test_a_build_on_the_cluster_is_the_local_build_byte_for_byte(
    name: str, client: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")  # no build time or duration in either file
    game = Game.parse(name)
    local, clustered = tmp_path / "local.sqlite", tmp_path / "cluster.sqlite"
    build_database(local, game=game)
    progress: list[tuple[str, int, int]] = []
    build_database(clustered, game=game, client=client, progress=lambda *report: progress.append(report))
    assert _files_equal(local, clustered)
    solving = [(done, total) for stage, done, total in progress if stage.startswith("solving levels")]
    assert {f"solving levels (level {depth})" for depth in (game.cells, 0)} <= {stage for stage, _, _ in progress}
    work = sum(level_work(game, depth) for depth in range(game.cells + 1))
    assert solving[-1] == (work, work)
    assert [done for done, _ in solving] == sorted(done for done, _ in solving)  # one count, level after level
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # the work folder is gone


_KILL_MARK = "TTT_DB_TEST_KILLED_ONCE"


def killing_once(marker: str, *task: Any) -> Any:
    """A task that kills its own worker the first time it runs anywhere (the marker file says
    whether it has), then solves as the real one does."""
    if not Path(marker).exists():
        Path(marker).touch()
        os.kill(os.getpid(), signal.SIGKILL)
    return solve_task(*task)


def test_a_worker_killed_in_the_middle_of_a_level_costs_only_its_task(client: Any, tmp_path: Path) -> None:
    import functools
    import sys

    import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import the tests
    game = Game.parse("4x4k4")
    marker = tmp_path / "killed"
    tables = RankedTables(game, compiled())
    solve = DaskLevels(client, tables, tmp_path, functools.partial(killing_once, str(marker)))
    below = None
    for local, counts in solve_core(tables):
        below, remote_counts = solve(local.depth, below, lambda *_: None)
        assert np.array_equal(np.asarray(local.codes), np.asarray(below.codes)), local.depth
        assert counts == remote_counts
    assert marker.exists()  # a worker did die, and its task ran again elsewhere


@pytest.mark.parametrize("task_boards", [1, 777])
def test_a_task_solves_its_range_in_parts_and_writes_each_at_its_boards(
    task_boards: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A task holds at most TASK_BOARDS boards (at least one canonical set) before writing them out:
    the codes file it writes is the in-process solve's level, whatever the parts' size."""
    from ttt_db.build import cluster

    monkeypatch.setattr(cluster, "TASK_BOARDS", task_boards)
    game = Game.parse("3x4k3")
    below_path = None
    for local, counts in solve_core(RankedTables(game, compiled())):
        sets = local.sets
        path = tmp_path / f"level-{local.depth:02d}.codes.npy"
        np.lib.format.open_memmap(path, mode="w+", dtype=np.uint8, shape=(max(1, sets.size),)).flush()
        middle = sets.canonical // 3
        found = solve_task(game.name, local.depth, below_path, 0, middle, str(path))
        found += solve_task(game.name, local.depth, below_path, middle, sets.canonical, str(path))
        assert np.array_equal(np.load(path)[: sets.size], np.asarray(local.codes)), local.depth
        assert found == counts
        below_path = str(path)


def test_a_build_on_the_cluster_stopped_between_levels_resumes(
    client: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stopping_build
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    game = Game.parse("3x4k3")
    whole = tmp_path / "whole.sqlite"
    build_database(whole, game=game)
    solved = stopping_build(4)
    path = tmp_path / "resumed.sqlite"
    with pytest.raises(KeyboardInterrupt):
        build_database(path, game=game, client=client)
    assert solved == [12, 11, 10, 9]
    stopping_build(None)
    summary = build_database(path, game=game, client=client)
    assert summary.resumed_at == 9
    assert _files_equal(path, whole)


def _slots(cells: int) -> list[int]:
    return [comb(cells, depth) * comb(depth, (depth + 1) // 2) for depth in range(cells + 1)]


@pytest.mark.parametrize("name", ["3x3k3", "3x4k3", "4x4k4", "2x5k3"])
def test_the_plan_counts_each_levels_canonical_sets_as_the_kernels_find_them(name: str) -> None:
    game = Game.parse(name)
    tables = RankedTables(game, compiled())
    assert [level.canonical_sets for level in plan_levels(game)] == [
        tables.level(depth).canonical for depth in range(game.cells + 1)
    ]


def test_the_plan_counts_5x5s_canonical_sets_without_enumerating_them() -> None:
    from ttt_db.ranked.slots import canonical_sets

    game = Game.parse("5x5k4")
    tables = RankedTables(game, compiled())
    for depth in (1, 2, 7, 12, 24):
        assert canonical_sets(game, depth) == tables.level(depth).canonical, depth


def test_the_plan_of_5x5k4_is_derived_from_its_levels(run) -> None:
    planned = run("build", "--game", "5x5k4", "--plan", "--json")
    assert planned.exit_code == 0, planned.output
    document = json.loads(planned.stdout)
    slots = _slots(25)
    assert document["slots"] == sum(slots) and document["slots_by_depth"] == slots
    boards = [
        canonical * comb(depth, (depth + 1) // 2) for depth, canonical in enumerate(document["canonical_sets_by_depth"])
    ]
    assert document["boards_by_depth"] == boards
    widest = max(range(26), key=lambda depth: boards[depth])
    assert document["widest_level"] == {"depth": widest, "boards": boards[widest], "slots": slots[widest]}
    pair = max(boards[depth] + boards[depth + 1] for depth in range(25))  # two levels held at once
    assert document["levels_memory_bytes"] == pair and document["extras_memory_bytes"] == 0  # 25 cells: no extras
    assert document["memory_bytes"] == pair + document["tables_memory_bytes"] + document["process_memory_bytes"]
    assert document["tables_memory_bytes"] > 4 * 2**25  # a rank per mask
    assert document["core_hours"] > 0
    machine = document["machine"]
    lacks = {lack.split(":")[0] for lack in document["lacks"]}
    expected = {"memory"} if document["memory_bytes"] > machine["memory_bytes"] else set()
    disk = document["work_disk_bytes"] + document["result_disk_bytes"]
    assert lacks == expected | ({"disk"} if disk > machine["disk_free_bytes"] else set())
    assert document["fits"] is (not lacks)
    text = run("build", "--game", "5x5k4", "--plan").stdout
    assert f"{sum(slots):,} in 26 levels" in text and f"{sum(boards):,} boards of canonical sets" in text
    assert f"two adjacent levels {pair / 1e9:,.1f} GB" in text  # the memory's largest part, a line of its own
    assert "timed just now on a sample of each level: it moves with this machine's load" in text


def test_a_cluster_plan_says_what_each_worker_holds(run) -> None:
    """`--plan --workers N`: a worker holds the tables, a bounded part of its task and the process;
    each worker machine holds the level the tasks read, the widest below the empty board's."""
    from ttt_db.build.cluster import TASK_BOARDS

    document = json.loads(run("build", "--game", "4x7k4", "--plan", "--workers", "64", "--json").stdout)
    worker, boards = document["worker"], document["boards_by_depth"]
    assert document["cluster"] is True and document["workers"] == 64
    assert worker["tables_memory_bytes"] == document["tables_memory_bytes"]
    assert worker["level_read_bytes"] == max(boards[1:]) == document["widest_level"]["boards"]
    patterns = [comb(depth, (depth + 1) // 2) for depth in range(len(boards))]
    parts = [  # a part: the most whole canonical sets TASK_BOARDS boards hold, at most the level's
        min(sets, max(1, TASK_BOARDS // pattern)) * pattern
        for sets, pattern in zip(document["canonical_sets_by_depth"], patterns, strict=True)
    ]
    assert worker["task_part_bytes"] == max(parts) <= TASK_BOARDS  # far below a level's share of a task
    assert worker["memory_bytes"] == sum(
        worker[key] for key in ("tables_memory_bytes", "task_part_bytes", "process_memory_bytes")
    )
    assert worker["memory_bytes"] < document["memory_bytes"] / 100
    small = json.loads(run("build", "--game", "3x3k3", "--plan", "--workers", "2", "--json").stdout)["worker"]
    assert small["task_part_bytes"] == small["level_read_bytes"]  # a task may hold a whole small level
    assert json.loads(run("build", "--game", "3x3k3", "--plan", "--json").stdout)["worker"] is None
    text = run("build", "--game", "4x7k4", "--plan", "--workers", "64").stdout
    assert f"per worker:     {worker['memory_bytes'] / 1e9:,.1f} GB" in text
    assert f"the level they read, up to {max(boards[1:]) / 1e9:,.1f} GB" in text
    assert "per worker" not in run("build", "--game", "4x7k4", "--plan").stdout


def test_a_small_games_plan_holds_what_its_build_takes(run, tmp_path: Path) -> None:
    """Issue 59: 4x4k4's plan said 2.5 MB, a 424 kB file and 0.00 CPU hours; its build took 431 MB,
    3.99 MB and seconds. The plan of 3x4k3 (odds, paths and plain tables kept) against its build's
    peak memory (in a process of its own, the kernels compiled in a first one) and its file."""
    import subprocess
    import sys

    pytest.importorskip("numba")
    build = (
        "import sys\n"
        "from ttt_db.build import build_database\n"
        "from ttt_db.game.definition import Game\n"
        "build_database(sys.argv[1], game=Game.parse('3x4k3'))\n"
        "print(open('/proc/self/status').read())\n"  # VmHWM, its own peak (ru_maxrss counts the parent's before exec)
    )
    if not Path("/proc/self/status").exists():
        pytest.skip("a process's own peak memory is read from /proc")
    peaks = []
    for name in ("first.sqlite", "second.sqlite"):
        done = subprocess.run([sys.executable, "-c", build, str(tmp_path / name)], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        peaks.append(int(done.stdout.split("VmHWM:")[1].split()[0]) * 1024)
    planned = subprocess.run(  # in a process of its own, as a user runs it: the plan measures its own memory
        [sys.executable, "-m", "ttt_db.cli", "build", "--game", "3x4k3", "--plan", "--json"],
        capture_output=True,
        text=True,
    )
    assert planned.returncode == 0, planned.stderr
    document = json.loads(planned.stdout)
    assert peaks[1] <= document["memory_bytes"] <= 3 * peaks[1], (peaks, document["memory_bytes"])
    size = (tmp_path / "second.sqlite").stat().st_size
    assert size <= document["result_disk_bytes"] <= 3 * size
    assert document["extras_memory_bytes"] > 0 and document["core_hours"] * 3600 > 0.05
    text = run("build", "--game", "3x4k3", "--plan").stdout
    assert f"on this machine's {os.cpu_count()} cores" in text and "worker(s)" not in text
    assert " s of CPU at this machine's measured rate" in text and "0.00" not in text


def test_a_game_beyond_this_machine_is_timed_at_a_measured_games_rate(run) -> None:
    """Issue 59: plans that do not fit gave no time at all, not even on a cluster."""
    from ttt_db.build.plan import measured_game

    assert measured_game(Game.parse("4x7k4")) == Game.parse("4x6k4")
    assert measured_game(Game.parse("6x6k5")) == Game.parse("5x5k5")
    assert measured_game(Game.parse("4x4k4")) == Game.parse("4x4k4")
    text = run("build", "--game", "4x7k4", "--plan", "--workers", "4").stdout
    assert "plan for 4x7k4 on a Dask cluster of 4 workers:" in text
    assert "of CPU at 4x6k4's rate measured on this machine (no game over 25 cells is)" in text
    assert ("a cluster divides it by its workers:" in text) is ("it lacks:" in text)  # 320 GB: it lacks, here


def test_a_build_this_machine_cannot_hold_is_refused_with_its_plan(
    run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ttt_db.build.plan import Machine

    monkeypatch.setattr(Machine, "here", classmethod(lambda cls, work_dir: cls(2, 10**7, 10**12)))
    refused = run("build", "--game", "4x5k4", "--db", str(tmp_path / "big.sqlite"))
    assert refused.exit_code == 2
    assert "4x5k4 does not fit this machine:" in refused.stderr
    assert "memory: " in refused.stderr and "10.0 MB here" in refused.stderr
    assert not list(tmp_path.iterdir())  # nothing started


def test_workers_and_scheduler_are_one_or_the_other(run) -> None:
    both = run("build", "--workers", "2", "--scheduler", "tcp://127.0.0.1:1")
    assert both.exit_code == 2 and "not both" in both.stderr


def test_a_cluster_that_does_not_start_is_started_once_more_then_refused_with_what_to_try(
    run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a busy machine a worker's start can outlast Dask's wait ("Nanny failed to start"): the
    build waits longer once, then says what failed and what to try, with exit 2 (not a bug's 3)."""
    distributed = pytest.importorskip("distributed", reason="Dask is not installed: pip install -e '.[dask]'")
    import dask

    from ttt_db.build.cluster import START_TIMEOUTS

    waited: list[str] = []

    class NeverStarts:
        def __init__(self, **options: object) -> None:
            waited.append(dask.config.get("distributed.comm.timeouts.connect"))
            raise RuntimeError("Nanny failed to start.")

    monkeypatch.setattr(distributed, "LocalCluster", NeverStarts)
    result = run("build", "--workers", "2", "--db", str(tmp_path / "db.sqlite"))
    assert waited == list(START_TIMEOUTS) and len(waited) == 2 and waited[0] != waited[1]
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"error: a Dask cluster of 2 workers did not start on this machine (waiting {' then '.join(waited)}: "
        "RuntimeError: Nanny failed to start.): try fewer --workers, a less busy machine, or a cluster of "
        "your own with --scheduler\n"
    )
    assert not (tmp_path / "db.sqlite").exists()


def test_a_scheduler_that_does_not_answer_is_a_clear_error(
    run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    distributed = pytest.importorskip("distributed", reason="Dask is not installed: pip install -e '.[dask]'")

    def unreachable(address: str, **options: object) -> None:
        raise OSError(f"Timed out trying to connect to {address} after 30 s")

    monkeypatch.setattr(distributed, "Client", unreachable)
    result = run("build", "--scheduler", "tcp://127.0.0.1:9", "--db", str(tmp_path / "db.sqlite"))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        "error: the Dask scheduler at tcp://127.0.0.1:9 did not answer (OSError: Timed out trying to connect to "
        "tcp://127.0.0.1:9 after 30 s): check its address and that it runs, or leave out --scheduler\n"
    )


def test_a_query_on_a_large_game_without_its_database_says_how_to_build_it(run, tmp_path: Path) -> None:
    asked = run("best-moves", "." * 25, "--game", "5x5k4", "--db", str(tmp_path / "big.sqlite"))
    assert asked.exit_code == 2
    assert asked.stderr.startswith("error: no database for 5x5k4 at ")
    assert "build it first with `ttt-db build --game 5x5k4`" in asked.stderr
    assert "building it now" not in asked.stderr and not list(tmp_path.iterdir())
    too_large = run("build", "--game", "6x6k4", "--db", str(tmp_path / "huge.sqlite"))
    assert too_large.exit_code == 2 and "6x6k4 has 36 cells; no build takes more than 25" in too_large.stderr


def test_docs_scale_quotes_5x5k4s_derived_figures() -> None:
    """docs/scale.md's slots and held boards are the plan's; its table of the solution adds up to its
    totals, and no position at a depth too shallow for a line is missing."""
    import re

    text = (Path(__file__).resolve().parents[1] / "docs" / "scale.md").read_text()
    flat = " ".join(text.split())
    levels = plan_levels(Game.parse("5x5k4"))
    assert f"5x5k4 has {sum(_slots(25)):,} slots" in flat
    assert f"holds {sum(level.boards for level in levels):,} boards of canonical sets in all" in flat
    rows = re.findall(r"^\| (\d+) \| ([\d,]+) \| ([\d,]+) \| (\d+) \| ([\d,]+) \| ([\d,]+) \|$", text, re.M)
    by_depth = {}
    for row in rows:
        for depth, positions, classes in (row[:3], row[3:]):
            by_depth[int(depth)] = (int(positions.replace(",", "")), int(classes.replace(",", "")))
    assert sorted(by_depth) == list(range(26))
    assert f"| positions | {sum(p for p, _ in by_depth.values()):,} |" in text
    assert f"| classes (up to the 8 symmetries) | {sum(c for _, c in by_depth.values()):,} |" in text
    assert all(by_depth[depth][0] == _slots(25)[depth] for depth in range(7))  # four in a row needs 7 marks
