"""The level solve on Dask: each level a map over ranges of its blocks, no shuffle and no join.

A task reads the level below from the work folder (mapped, never copied whole into the task) and
writes the codes of its range into the level's files there, so the work folder must be where
every worker can read and write it (`--work-dir` on shared storage for a cluster); the driver
then compresses the level as a local build does, so the database is the same file. A worker that
dies costs its task, which Dask runs again: a task writes only its own range, so a second run
writes the same bytes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any, Final

import numpy as np

from builder.core import LevelCounts, SolvedLevel, solve_blocks
from ttt_db.errors import MissingExtraError
from ttt_db.game.definition import Game, level_slots
from ttt_db.store.core_arrays import Tables, block_count

TASKS_PER_WORKER = 4
"""A level is cut into about this many tasks per worker (never below a block each), so that a
slow or lost task holds up little."""

NO_MALLOC_TRIM: Final = {"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}
"""Dask starts its workers with glibc's trim threshold set, which also fixes the threshold above
which every allocation is a fresh mapping: a level's block temporaries then cost page faults on
every block (the level solve ran at half speed). Workers this builder starts go without it."""

SolveRange = Callable[[str, int, str | None, int, int, str, str], LevelCounts]
"""(game name, depth, the level below's codes file, first block, last block, codes file, stored
file) -> the counts of that range: `solve_range`, or a test's wrapper of it."""


@cache
def _tables(game_name: str) -> Tables:
    """The game's tables, made once per worker process."""
    return Tables(Game.parse(game_name))


def solve_range(
    game_name: str, depth: int, below_path: str | None, first: int, last: int, codes_path: str, stored_path: str
) -> LevelCounts:
    """One task: blocks `first` to `last` (exclusive) of level `depth`, from the level below's
    codes file, written into the level's codes and stored files (mapped) at their slots."""
    tables = _tables(game_name)
    below = None if below_path is None else np.load(below_path, mmap_mode="r")
    codes = np.load(codes_path, mmap_mode="r+")
    stored = np.load(stored_path, mmap_mode="r+")
    counts = solve_blocks(tables, depth, below, tables.blocks(depth, first, last), codes, stored)
    codes.flush()
    stored.flush()
    return counts


def connect(workers: int | None, scheduler: str | None) -> Any:
    """A Dask client: a LocalCluster of `workers` processes on this machine, or the scheduler at
    `scheduler`; MissingExtraError without Dask."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise MissingExtraError("Dask (dask[distributed])", "dask") from None
    import dask

    if scheduler is not None:
        return Client(scheduler)  # type: ignore[no-untyped-call]
    with dask.config.set(NO_MALLOC_TRIM):
        cluster = LocalCluster(  # type: ignore[no-untyped-call]
            n_workers=workers or 1, threads_per_worker=1, processes=True, dashboard_address=":0"
        )
    return Client(cluster)  # type: ignore[no-untyped-call]


def solve_core_on_dask(
    game: Game,
    client: Any,
    work: Path,
    progress: Callable[[int, int, int], None] | None = None,
    start: tuple[int, Path] | None = None,
    solve: SolveRange = solve_range,
) -> Iterator[SolvedLevel]:
    """Every level, deepest first, as `builder.core.solve_core` gives them, each solved by tasks
    on `client`'s workers into files of `work` (`level-DD.codes.npy`, `level-DD.stored.npy`);
    `start`, the depth and codes file of a level already solved, resumes above it."""
    from distributed import as_completed

    workers = max(1, len(client.scheduler_info().get("workers", {})))
    below_path = None if start is None else str(start[1])
    first_depth = game.cells if start is None else start[0] - 1
    for depth in range(first_depth, -1, -1):
        slots = level_slots(game.cells, depth)
        codes_path, stored_path = work / f"level-{depth:02d}.codes.npy", work / f"level-{depth:02d}.stored.npy"
        files = (codes_path, stored_path)
        for path in files:
            np.lib.format.open_memmap(path, mode="w+", dtype=np.uint8, shape=(slots,)).flush()
        blocks = block_count(game.cells, depth)
        step = max(1, -(-blocks // (workers * TASKS_PER_WORKER)))
        ranges = [(first, min(first + step, blocks)) for first in range(0, blocks, step)]
        futures = [
            client.submit(
                solve, game.name, depth, below_path, first, last, str(codes_path), str(stored_path), pure=False
            )
            for first, last in ranges
        ]
        counts = LevelCounts()
        for done, future in enumerate(as_completed(futures), start=1):  # type: ignore[no-untyped-call]
            counts += future.result()
            if progress is not None:
                progress(depth, done, len(futures))
        codes = np.load(codes_path, mmap_mode="r")
        stored = np.load(stored_path, mmap_mode="r")
        yield SolvedLevel(depth, codes, stored, counts)
        if below_path is not None and Path(below_path).name.endswith(".codes.npy"):
            Path(below_path).unlink(missing_ok=True)
            Path(below_path.replace(".codes.npy", ".stored.npy")).unlink(missing_ok=True)
        below_path = str(codes_path)
