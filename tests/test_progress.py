"""Progress that tells the truth: a build's and a check's counts are the whole job's, so that the
rate and the time left they give hold (issue 39: "about 7:06:02 left" for a build done in 3:27)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ttt_db.build.levels import build_core, work_folder
from ttt_db.cli import checks
from ttt_db.cli.progress import LineBar, stage_progress
from ttt_db.game.definition import Game
from ttt_db.ranked.slots import level_work
from ttt_db.store.location import DatabaseLocation


class FakeClock:
    """time.monotonic for the progress lines, moved by the test."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    fake = FakeClock()
    monkeypatch.setattr(LineBar, "now", staticmethod(fake))
    monkeypatch.setattr(LineBar, "LINE_SECONDS", 0.0)
    monkeypatch.setattr("sys.stderr.isatty", lambda: False)
    return fake


def _left(line: str) -> float:
    """The seconds a progress line says are left ("about 1:02 left")."""
    told = line.rsplit("about ", 1)[1].split(" left")[0].split(":")
    return sum(int(part) * 60**power for power, part in enumerate(reversed(told)))


def _estimates(samples: list[tuple[float, int, int]], start: float, stop: float) -> Iterator[tuple[float, float]]:
    """(time left estimated from the rate so far, time actually left) at each sample from `start`
    to `stop` of the work, as a progress line computes it from the first sample on."""
    first, end = samples[0][0], samples[-1][0]
    for at, done, total in samples:
        if start <= done / total <= stop and at > first:
            yield (at - first) * (total - done) / done, end - at


def _timed_build(game: Game, location: DatabaseLocation) -> tuple[list[tuple[float, int, int]], set[str]]:
    """A build's progress reports, each with the process's CPU time then (the work's own time, on a
    busy machine too), and the stages it named."""
    samples: list[tuple[float, int, int]] = []
    stages: set[str] = set()

    def progress(stage: str, done: int, total: int) -> None:
        stages.add(stage)
        samples.append((time.process_time(), done, total))

    build_core(game, work_folder(location, game), progress, lambda _: None, fresh=True)
    return samples, stages


def test_a_build_counts_its_levels_as_one_job_and_its_time_left_holds_within_2x(tmp_path: Path) -> None:
    game = Game.parse("3x6k3")  # large enough that the levels' work, not their fixed costs, takes the time
    location = DatabaseLocation(f"sqlite:///{tmp_path / 'x.sqlite'}", tmp_path / "x.sqlite")
    # every kernel the build runs compiled before anything is timed (a fresh install has no cache)
    build_core(game, work_folder(location, game), lambda *_: None, lambda _: None, fresh=True)
    work = sum(level_work(game, depth) for depth in range(game.cells + 1))
    off: list[tuple[float, float]] = []
    for _ in range(2):  # CPU time too is slowed by a neighbour's memory traffic: a second build, if need be
        samples, stages = _timed_build(game, location)
        assert {total for _, _, total in samples} == {work} and samples[-1][1] == work
        assert [done for _, done, _ in samples] == sorted(done for _, done, _ in samples)
        assert stages == {f"solving levels (level {depth})" for depth in range(game.cells + 1)}
        estimates = list(_estimates(samples, 0.1, 0.9))
        assert len(estimates) > 3
        off = [(told, actual) for told, actual in estimates if not actual / 2 <= told <= 2 * actual]
        if not off:
            break
    assert off == [], "(estimated, actual) seconds left, in both builds"


def test_a_stage_keeps_its_count_while_its_name_changes_and_starts_again_for_the_next(
    clock: FakeClock, capsys: pytest.CaptureFixture[str]
) -> None:
    with stage_progress(quiet=False) as progress:
        progress("solving levels (level 9)", 0, 1000)
        clock.now += 10
        progress("solving levels (level 9)", 100, 1000)
        clock.now += 40
        progress("solving levels (level 8)", 500, 1000)
        clock.now += 30
        progress("write levels", 0, 40)
        clock.now += 2
        progress("write levels", 10, 40)
    lines = capsys.readouterr().err.splitlines()
    assert lines[1].startswith("solving levels (level 9): 100/1,000 steps (10.0%), 0:10 elapsed")
    assert lines[2].startswith("solving levels (level 8): 500/1,000 steps (50.0%), 0:50 elapsed")
    assert _left(lines[2]) == 50
    assert lines[-1].startswith("write levels: 10/40 steps (25.0%), 0:02 elapsed") and _left(lines[-1]) == 6


def test_the_strong_checks_time_left_is_its_own_not_the_weak_checks_before_it(
    clock: FakeClock, capsys: pytest.CaptureFixture[str]
) -> None:
    with checks._check_progress("slowbot", bounded=True, quiet=False) as (weak, strong):
        weak(10)
        clock.now += 600  # a long weak check
        weak(20_000)
        strong(0, 3000)
        clock.now += 10
        strong(1000, 3000)
    line = capsys.readouterr().err.splitlines()[-1]
    assert line.startswith("strong check: decision positions asked: 1,000/3,000 boards (33.3%), 0:10 elapsed")
    assert _left(line) == 20


@pytest.mark.parametrize(
    ("done", "elapsed", "rate"),
    [(4, 10.0, "2.5 s/board"), (4, 2.0, "2.0 boards/s"), (400, 4.0, "100 boards/s"), (0, 3.0, "no board done yet")],
)
def test_a_rate_is_written_as_a_person_reads_it(done: int, elapsed: float, rate: str) -> None:
    bar = LineBar(None, "weak check", "board")
    bar.n = done
    assert bar.line(elapsed).endswith(f"elapsed, {rate}")
