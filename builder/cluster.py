"""The level solve on Dask: each level a map over ranges of its canonical sets, no shuffle and no
join, running the same kernel as a local build (`ttt_db.ranked.step.solve_range`).

A task reads the level below from the work folder (mapped, never copied whole into the task) and
writes the codes of its range into the level's file there, so the work folder must be where every
worker can read and write it (`--work-dir` on shared storage for a cluster); the driver then
compresses the level as a local build does, so the database is the same file. A worker that dies
costs its task, which Dask runs again: a task writes only its own range, so a second run writes
the same bytes.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any, Final, Literal

from ttt_db.errors import ClusterStartError, MissingExtraError
from ttt_db.game.definition import Game
from ttt_db.ranked.backend import compiled
from ttt_db.ranked.step import Level, LevelCounts, range_grain, solve_range
from ttt_db.ranked.tables import RankedTables

TASKS_PER_WORKER: Final = 4
"""A level is cut into about this many tasks per worker, so that a slow or lost task holds up little."""

NO_MALLOC_TRIM: Final = {"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}
"""Dask starts its workers with glibc's trim threshold set, which also fixes the threshold above
which every allocation is a fresh mapping: a level's temporaries then cost page faults on every
range. Workers this builder starts go without it."""

TASK_BOARDS: Final = 1 << 26
"""The most boards a task holds in its own memory before it writes them out (a byte each)."""

QUIET: Final = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.worker.memory.monitor-interval": "1s",
}
"""What Dask's processes do beside the tasks, for a cluster this builder starts: no statistical
profile of every worker thread, its event loop's health and the system's load read seldom (they
feed a dashboard that nothing here shows), memory read every second. On a build of a few seconds
a level they cost a tenth of the work and more."""

START_TIMEOUTS: Final = ("30s", "120s")
"""How long a cluster's start or a scheduler's answer is waited for (Dask's connect timeout): its
default, then once more, longer, on a machine too busy to start workers in time."""

SolveTask = Callable[[str, int, str | None, int, int, str], LevelCounts]
"""(game name, depth, the level below's codes file, first canonical set, last, the level's codes
file) -> the counts of that range: `solve_task`, or a test's wrapper of it."""


@cache
def _tables(game_name: str) -> RankedTables:
    """The game's tables, made once per worker process (compiled: a worker solves large levels)."""
    return RankedTables(Game.parse(game_name), compiled())


def _level(tables: RankedTables, depth: int, path: str, mode: Literal["r", "r+"]) -> Level:
    import numpy as np

    codes = np.load(path, mmap_mode=mode)
    return Level(tables.level(depth), codes)


def solve_task(
    game_name: str, depth: int, below_path: str | None, start: int, stop: int, codes_path: str
) -> LevelCounts:
    """One task: canonical sets `start` to `stop` of level `depth`, from the level below's codes
    file (mapped), solved in the task's own memory, at most TASK_BOARDS boards at a time, each part
    then written into the level's codes file at its boards. (Solved in place in a mapping of that
    file, a range costs more CPU: a page fault on every page written, and no huge pages.)"""
    import numpy as np

    tables = _tables(game_name)
    below = None if below_path is None else _level(tables, depth + 1, below_path, "r")
    sets = tables.level(depth)
    per = part_sets(sets.patterns)
    held = tables.backend.u8(min(stop - start, per) * sets.patterns)
    counts = LevelCounts()
    offset = np.load(codes_path, mmap_mode="r").offset  # where the file's array begins, after its header
    with open(codes_path, "r+b") as file:
        for first in range(start, stop, per):
            last = min(first + per, stop)
            codes = held[: (last - first) * sets.patterns]
            counts += solve_range(tables, Level(sets, codes), below, first, last, into=codes)
            file.seek(offset + first * sets.patterns)
            file.write(memoryview(codes))
    return counts


def part_sets(patterns: int) -> int:
    """The canonical sets of a level (`patterns` boards each) that a task solves in one part: as
    many as TASK_BOARDS boards hold, at least one."""
    return max(1, TASK_BOARDS // max(1, patterns))


def connect(workers: int | None, scheduler: str | None) -> Any:
    """A Dask client: a LocalCluster of `workers` processes on this machine, or the scheduler at
    `scheduler`; MissingExtraError without Dask. A cluster that fails to start is started once more,
    waiting longer (a busy machine starts workers slowly); ClusterStartError when that fails too
    or the scheduler does not answer. Its workers are spawned (Dask's default), not forked: this
    process holds threads (Dask's event loop; a test runner's), and a worker forked from it once
    hung on a lock that another thread held at the fork."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise MissingExtraError("Dask (dask[distributed])", "dask") from None
    import dask

    if scheduler is not None:
        try:
            return Client(scheduler)  # type: ignore[no-untyped-call]
        except (OSError, TimeoutError) as error:
            raise ClusterStartError(None, scheduler, (), _said(error)) from None
    failure = ""
    for timeout in START_TIMEOUTS:
        try:
            with dask.config.set({**NO_MALLOC_TRIM, **QUIET, "distributed.comm.timeouts.connect": timeout}):
                cluster = LocalCluster(  # type: ignore[no-untyped-call]
                    n_workers=workers or 1, threads_per_worker=1, processes=True, dashboard_address=":0"
                )
            return Client(cluster)  # type: ignore[no-untyped-call]
        except (OSError, RuntimeError, TimeoutError) as error:
            failure = _said(error)
    raise ClusterStartError(workers, None, START_TIMEOUTS, failure)


def _said(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__


class DaskLevels:
    """Levels solved by tasks on a Dask client's workers, each level a file of the work folder
    (`level-DD.codes.npy`) that the next level's tasks read."""

    def __init__(
        self,
        client: Any,
        tables: RankedTables,
        work: Path,
        task: SolveTask = solve_task,
    ) -> None:
        self.client = client
        self.tables = tables
        self.work = work
        self.task = task
        self._files: dict[int, Path] = {}

    def _file_of(self, level: Level) -> Path:
        """The codes file of a level (written first when the level is held in memory: one taken
        back from a stopped build's chunks)."""
        import numpy as np

        found = self._files.get(level.depth)
        if found is None:
            found = self._files[level.depth] = self.work / f"level-{level.depth:02d}.codes.npy"
            np.save(found, np.asarray(level.codes))
        return found

    def __call__(
        self, depth: int, below: Level | None, progress: Callable[[int, int], None]
    ) -> tuple[Level, LevelCounts]:
        import numpy as np
        from distributed import as_completed

        tables = self.tables
        sets = tables.level(depth)
        workers = max(1, len(self.client.scheduler_info().get("workers", {})))
        below_path = None if below is None else str(self._file_of(below))
        path = self._files[depth] = self.work / f"level-{depth:02d}.codes.npy"
        np.lib.format.open_memmap(path, mode="w+", dtype=np.uint8, shape=(max(1, sets.size),)).flush()
        step = max(range_grain(sets), -(-sets.canonical // (workers * TASKS_PER_WORKER)))
        ranges = [(start, min(start + step, sets.canonical)) for start in range(0, sets.canonical, step)]
        futures = [
            self.client.submit(self.task, tables.game.name, depth, below_path, start, stop, str(path), pure=False)
            for start, stop in ranges
        ]
        counts = LevelCounts()
        for done, future in enumerate(as_completed(futures), start=1):  # type: ignore[no-untyped-call]
            counts += future.result()
            progress(done, len(futures))
        for deeper in [d for d in self._files if d > depth + 1]:
            self._files.pop(deeper).unlink(missing_ok=True)
        return _level(tables, depth, str(path), "r"), counts
