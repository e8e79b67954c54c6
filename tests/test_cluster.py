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

from builder import build_database
from builder.cluster import solve_core_on_dask, solve_range
from builder.core import solve_core
from ttt_db.game.definition import Game


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    pytest.importorskip("distributed", reason="Dask is not installed: pip install -e '.[dask]'")
    from builder.cluster import connect

    with connect(2, None) as opened:
        assert len(opened.scheduler_info()["workers"]) == 2
        yield opened
        opened.cluster.close()


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
    progress: list[str] = []
    build_database(clustered, game=game, client=client, progress=lambda stage, done, total: progress.append(stage))
    assert _files_equal(local, clustered)
    assert f"level {game.cells} (tasks)" in progress and "level 0 (tasks)" in progress
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # the work folder is gone


_KILL_MARK = "TTT_DB_TEST_KILLED_ONCE"


def killing_once(marker: str, *task: Any) -> Any:
    """A task that kills its own worker the first time it runs anywhere (the marker file says
    whether it has), then solves as the real one does."""
    if not Path(marker).exists():
        Path(marker).touch()
        os.kill(os.getpid(), signal.SIGKILL)
    return solve_range(*task)


def test_a_worker_killed_in_the_middle_of_a_level_costs_only_its_task(client: Any, tmp_path: Path) -> None:
    import functools
    import sys

    import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import the tests
    game = Game.parse("4x4k4")
    marker = tmp_path / "killed"
    work = tmp_path / "work"
    work.mkdir()
    clustered = solve_core_on_dask(game, client, work, solve=functools.partial(killing_once, str(marker)))
    for local, remote in zip(solve_core(game), clustered, strict=True):
        assert local.depth == remote.depth
        assert np.array_equal(local.codes, remote.codes) and np.array_equal(local.stored, remote.stored)
        assert local.counts == remote.counts
    assert marker.exists()  # a worker did die, and its task ran again elsewhere


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


def test_the_tasks_cut_a_level_into_the_blocks_the_builder_makes() -> None:
    from ttt_db.store.core_arrays import Tables, block_count

    tables = Tables(Game.parse("4x4k4"))
    assert [block_count(16, depth) for depth in range(17)] == [len(list(tables.blocks(d))) for d in range(17)]


def test_the_plan_of_5x5k4_is_derived_from_its_slot_counts(run) -> None:
    planned = run("build", "--game", "5x5k4", "--plan", "--workers", "16", "--json")
    assert planned.exit_code == 0, planned.output
    document = json.loads(planned.stdout)
    slots = _slots(25)
    assert document["slots"] == sum(slots) and document["slots_by_depth"] == slots
    assert document["widest_level"] == {"depth": slots.index(max(slots)), "slots": max(slots)}
    assert document["result_disk_bytes"] == sum(slots) // 8  # a byte per class, 8 symmetries of the square
    assert document["core_hours"] > 0 and document["hours_on_workers"] == pytest.approx(document["core_hours"] / 16)
    pages = max(slots[depth] + slots[depth + 1] for depth in range(25))  # the two levels read at once
    memory = 16 * document["worker_memory_bytes"] + document["driver_memory_bytes"] + pages
    disk = document["work_disk_bytes"] + document["result_disk_bytes"]
    machine = document["machine"]
    lacks = {lack.split(":")[0] for lack in document["lacks"]}
    expected = {"memory"} if memory > machine["memory_bytes"] else set()
    assert lacks == expected | ({"disk"} if disk > machine["disk_free_bytes"] else set())
    assert document["fits"] is (not lacks)
    text = run("build", "--game", "5x5k4", "--plan").stdout
    assert f"{sum(slots):,} in 26 levels" in text


def test_a_build_larger_than_one_machine_builds_is_refused_with_its_plan(run, tmp_path: Path) -> None:
    refused = run("build", "--game", "5x5k4", "--db", str(tmp_path / "big.sqlite"))
    assert refused.exit_code == 2
    assert "5x5k4 has 25 cells; one machine builds games of up to 20: build it on a cluster" in refused.stderr
    assert f"slots:          {sum(_slots(25)):,}" in refused.stderr
    assert not list(tmp_path.iterdir())  # nothing started


def test_workers_and_scheduler_are_one_or_the_other(run) -> None:
    both = run("build", "--workers", "2", "--scheduler", "tcp://127.0.0.1:1")
    assert both.exit_code == 2 and "not both" in both.stderr


def test_docs_scale_quotes_5x5k4s_derived_figures() -> None:
    text = " ".join((Path(__file__).resolve().parents[1] / "docs" / "scale.md").read_text().split())
    slots = _slots(25)
    widest = max(slots)
    assert f"5x5k4 has {sum(slots):,} slots, the widest level {widest:,} at depth {slots.index(widest)}" in text
    assert f"{sum(slots) // 8:,} classes at most" in text


def test_a_query_on_a_game_no_machine_here_builds_is_refused_before_it_says_it_builds(run, tmp_path: Path) -> None:
    asked = run("best-moves", "." * 25, "--game", "5x5k4", "--db", str(tmp_path / "big.sqlite"))
    assert asked.exit_code == 2
    assert asked.stderr.startswith("error: 5x5k4 has 25 cells; one machine builds games of up to 20")
    assert "building it now" not in asked.stderr and not list(tmp_path.iterdir())
    too_large = run("build", "--game", "6x6k4", "--db", str(tmp_path / "huge.sqlite"))
    assert too_large.exit_code == 2 and "6x6k4 has 36 cells; no build takes more than 25" in too_large.stderr
