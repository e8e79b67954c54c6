"""What a build will take, before it starts: `ttt-db build --plan`, and the refusal of a build this
machine cannot hold.

Every figure is derived from the game's slot counts (`ttt_db.game.definition.level_slots`) and
from what this machine measures on a small game in a second: how many bytes the lookup tables
hold per mask of the cells, the block temporaries per slot, and the solve rate per slot (scaled
by the number of cells: a slot's work grows with its moves).
"""

from __future__ import annotations

import os
import shutil
import time
import tracemalloc
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Final

import numpy as np

from builder.core import solve_blocks
from ttt_db.game.definition import Game, level_slots
from ttt_db.store.codes import CHUNK_SLOTS
from ttt_db.store.core_arrays import BLOCK_SLOTS, Tables

PROXY: Final = Game(4, 4, 4)
"""The game the machine is measured on: large enough for whole blocks, built in seconds."""


@dataclass(frozen=True, slots=True)
class Rates:
    """This machine, measured on PROXY: per mask, per slot, per slot and cell."""

    table_bytes_per_mask: float
    temporary_bytes_per_slot: float
    seconds_per_slot_cell: float


def _array_bytes(value: object) -> int:
    if isinstance(value, np.ndarray):
        return int(value.nbytes)
    if isinstance(value, list | tuple):
        return sum(_array_bytes(item) for item in value)
    return 0


@cache
def measured_rates() -> Rates:
    """Build PROXY's tables and solve two blocks of its widest level from random codes below."""
    tables = Tables(PROXY)
    table_bytes = sum(_array_bytes(value) for value in vars(tables).values())
    sizes = [level_slots(PROXY.cells, depth) for depth in range(PROXY.cells + 1)]
    depth = int(np.argmax(sizes))
    below = np.random.default_rng(0).integers(0, 128, level_slots(PROXY.cells, depth + 1), dtype=np.uint8)
    codes, stored = np.zeros(sizes[depth], np.uint8), np.zeros(sizes[depth], np.uint8)
    blocks = list(tables.blocks(depth, 0, 2))
    slots = sum(block.slots.stop - block.slots.start for block in blocks)
    tracemalloc.start()
    started = time.perf_counter()
    solve_blocks(tables, depth, below, blocks, codes, stored)
    seconds = time.perf_counter() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    per_block = slots / len(blocks)
    return Rates(table_bytes / 2**PROXY.cells, peak / per_block, seconds / slots / PROXY.cells)


@dataclass(frozen=True, slots=True)
class Machine:
    cores: int
    memory: int
    disk_free: int

    @classmethod
    def here(cls, work_dir: Path) -> Machine:
        folder = work_dir
        while not folder.exists():
            folder = folder.parent
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        return cls(os.cpu_count() or 1, memory, shutil.disk_usage(folder).free)


@dataclass(frozen=True, slots=True)
class BuildPlan:
    game: Game
    workers: int
    level_slots: tuple[int, ...]
    worker_memory: int  # bytes a worker (or the one local process) holds while it solves a task
    driver_memory: int  # bytes the process that compresses and writes each level holds
    work_disk: int  # the work folder at its fullest
    result_disk: int  # the database's core at most (before compression)
    core_hours: float  # at this machine's measured rate
    machine: Machine
    lacks: list[str] = field(default_factory=list)

    @property
    def total_slots(self) -> int:
        return sum(self.level_slots)

    @property
    def widest(self) -> int:
        return max(self.level_slots)

    def to_document(self) -> dict[str, Any]:
        return {
            "game": self.game.name,
            "workers": self.workers,
            "slots": self.total_slots,
            "slots_by_depth": list(self.level_slots),
            "widest_level": {"depth": self.level_slots.index(self.widest), "slots": self.widest},
            "worker_memory_bytes": self.worker_memory,
            "driver_memory_bytes": self.driver_memory,
            "work_disk_bytes": self.work_disk,
            "result_disk_bytes": self.result_disk,
            "core_hours": self.core_hours,
            "hours_on_workers": self.core_hours / self.workers,
            "machine": {
                "cores": self.machine.cores,
                "memory_bytes": self.machine.memory,
                "disk_free_bytes": self.machine.disk_free,
            },
            "lacks": self.lacks,
            "fits": not self.lacks,
        }


def plan_build(game: Game, workers: int = 1, work_dir: Path = Path("."), machine: Machine | None = None) -> BuildPlan:
    """What building `game` on `workers` processes takes, and what `machine` (this one by default,
    with the work folder in `work_dir`) lacks for it."""
    rates = measured_rates()
    sizes = tuple(level_slots(game.cells, depth) for depth in range(game.cells + 1))
    widest = max(sizes)
    pairs = max(sizes[depth] + sizes[depth + 1] for depth in range(game.cells))
    tables = int(rates.table_bytes_per_mask * 2**game.cells)
    temporaries = int(rates.temporary_bytes_per_slot * BLOCK_SLOTS * game.cells / PROXY.cells)
    worker_memory = tables + temporaries
    driver_memory = 2 * CHUNK_SLOTS * 8  # a level compressed and counted a chunk at a time
    result = sum(sizes) // len(game.transforms)  # a byte per class's representative, at most
    work_disk = 2 * pairs + widest + result  # codes of two levels, their scratch, the chunks so far
    core_hours = rates.seconds_per_slot_cell * game.cells * sum(sizes) / 3600
    machine = machine or Machine.here(work_dir)
    lacks = []
    needed = workers * worker_memory + driver_memory + pairs  # the pages of the levels read, cached
    if needed > machine.memory:
        lacks.append(f"memory: {_size(needed)} for {workers} worker(s) and the driver; {_size(machine.memory)} here")
    if work_disk + result > machine.disk_free:
        disk = _size(work_disk + result)
        lacks.append(f"disk: {disk} for the work folder and the database; {_size(machine.disk_free)} free")
    return BuildPlan(game, workers, sizes, worker_memory, driver_memory, work_disk, result, core_hours, machine, lacks)


def _size(count: int) -> str:
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6)):
        if count >= scale:
            return f"{count / scale:,.1f} {unit}"
    return f"{count / 1e3:,.1f} kB"


def plan_lines(plan: BuildPlan) -> list[str]:
    """The plan as text: `ttt-db build --plan`, and the refusal of a build that does not fit."""
    widest_depth = plan.level_slots.index(plan.widest)
    hours = plan.core_hours
    workers = f"{plan.workers} worker(s)"
    lines = [
        f"plan for {plan.game.name} on {workers}:",
        f"  slots:          {plan.total_slots:,} in {len(plan.level_slots)} levels, "
        f"the widest {plan.widest:,} (depth {widest_depth})",
        f"  each worker:    {_size(plan.worker_memory)} of memory (lookup tables and a block's temporaries)",
        f"  the driver:     {_size(plan.driver_memory)} of memory (a level compressed as it is written)",
        f"  work folder:    {_size(plan.work_disk)} at its fullest (--work-dir: shared storage for a cluster)",
        f"  the database:   at most {_size(plan.result_disk)} before compression (a byte per class)",
        f"  time:           {hours:,.2f} core-hours at this machine's rate, {hours / plan.workers:,.2f} h on {workers}",
        f"  this machine:   {plan.machine.cores} cores, {_size(plan.machine.memory)} of memory, "
        f"{_size(plan.machine.disk_free)} free",
    ]
    if plan.lacks:
        lines += ["  it lacks:", *(f"    {lack}" for lack in plan.lacks)]
    else:
        lines.append("  it fits")
    return lines
