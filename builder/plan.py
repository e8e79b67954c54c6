"""What a build will take, before it starts: `ttt-db build --plan`, and the refusal of a build this
machine cannot hold.

Every figure but the time and the file's size is exact, from the game's levels: a level holds the
boards of its canonical occupied sets (their number counted by Burnside's lemma from the
symmetries' cycles, no enumeration), a build holds two adjacent levels at once, the game's tables
(a rank per mask of its cells, each set's canonical set for two levels) and a level's insert table.
The time is CPU time measured on this machine, never the wall clock of a run that shares it: the
level step on a sample of each level's canonical sets (against codes made up for their children,
the C floor's SAMPLE_DEPTH) on the levels that hold the work, the layout and compression on a whole
4x4k4 solved for real; each scaled by its level's moves and boards.
"""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass, field
from functools import cache
from math import comb
from pathlib import Path
from typing import Any, Final

from ttt_db.game.definition import Game
from ttt_db.ranked.slots import MAX_CELLS, canonical_sets, level_slots, o_count
from ttt_db.store.chunks import CHUNK_SLOTS
from ttt_db.store.extras import keeps_extras

STORED_PER_BOARD: Final = 0.3
"""Compressed bytes stored per board of a canonical set: above what the large games measure
(docs/performance.md); each chunk's row costs CHUNK_ROW_BYTES besides."""
CHUNK_ROW_BYTES: Final = 64


@dataclass(frozen=True, slots=True)
class PlanLevel:
    depth: int
    slots: int  # in the stored numbering
    sets: int
    canonical_sets: int
    patterns: int  # boards per set

    @property
    def boards(self) -> int:
        """Boards held: every board of the canonical sets (a byte each)."""
        return self.canonical_sets * self.patterns

    @property
    def chunks(self) -> int:
        return -(-self.slots // CHUNK_SLOTS)


def plan_levels(game: Game) -> list[PlanLevel]:
    n = game.cells
    return [
        PlanLevel(d, level_slots(n, d), comb(n, d), canonical_sets(game, d), comb(d, o_count(d))) for d in range(n + 1)
    ]


@dataclass(frozen=True, slots=True)
class Rates:
    """This machine's CPU seconds per move of a board solved, level by level, and per board
    laid out and compressed."""

    per_move: tuple[float, ...]  # by depth
    per_board_stored: float


PROXY: Final = Game(4, 4, 4)
"""The game whose levels are laid out and compressed to measure that rate: real codes, in a second."""
SAMPLE_SETS: Final = 48
"""Canonical sets of a level solved to measure its rate."""
SAMPLED_SHARE: Final = 0.95
"""The levels holding this share of the moves are measured; each other level takes the nearest's rate."""


@cache
def measured_rates(game: Game) -> Rates:
    """The level step timed on SAMPLE_SETS canonical sets of every level (compiled, one thread),
    the layout and compression on PROXY's levels."""
    from ttt_db.ranked.backend import Backend, compiled
    from ttt_db.ranked.tables import RankedTables

    one_thread = Backend("compiled", compiled().run, 1)
    _solve_whole(RankedTables(Game(2, 2, 2), one_thread))  # compiled before anything is timed
    tables = RankedTables(game, one_thread)
    n = game.cells
    moves = {level.depth: level.boards * (n - level.depth) for level in plan_levels(game)}
    sampled: dict[int, float] = {}
    for depth in sorted(moves, key=lambda depth: -moves[depth]):  # the levels that hold the work
        if sum(moves[d] for d in sampled) >= SAMPLED_SHARE * sum(moves.values()) or moves[depth] == 0:
            break
        sampled[depth] = _sampled_rate(tables, depth)
    per_move = tuple(sampled[min(sampled, key=lambda d: abs(d - depth))] for depth in range(n + 1))
    return Rates(per_move, _stored_rate(RankedTables(PROXY, one_thread)))


def _sampled_rate(tables: Any, depth: int) -> float:
    """CPU seconds per move of the level step on a sample of the level's canonical sets, their
    children's canonical sets made up (random codes) and renumbered to fit a small level below."""
    from dataclasses import replace

    import numpy as np

    from ttt_db.ranked.step import Level, solve_range

    sets, below = tables.level(depth), tables.level(depth + 1)
    chosen = np.unique(np.linspace(0, sets.canonical - 1, min(SAMPLE_SETS, sets.canonical)).astype(np.int64))
    needed: set[int] = set()
    for c in chosen.tolist():
        mask = tables.run.unrank(int(sets.cset[c]), depth, tables.cells, tables.binom)
        needed.update(
            int(below.ci[tables.rank_of[mask | 1 << cell]]) for cell in range(tables.cells) if not mask >> cell & 1
        )
    renumber = np.zeros(below.canonical, np.uint32)
    renumber[sorted(needed)] = np.arange(len(needed), dtype=np.uint32)
    small_below = replace(below, ci=renumber[below.ci], canonical=len(needed))
    codes = np.random.default_rng(depth).integers(1, 193, len(needed) * below.patterns, dtype=np.uint8)
    here = replace(sets, cset=sets.cset[chosen], canonical=len(chosen))
    level = Level(here, np.zeros(here.size, np.uint8))
    started = time.process_time()
    solve_range(tables, level, Level(small_below, codes), 0, len(chosen))
    moves: int = here.size * (tables.cells - depth)
    return (time.process_time() - started) / max(1, moves)


def _stored_rate(tables: Any) -> float:
    """CPU seconds per board held to lay a level out and compress it, on every level of PROXY."""
    from ttt_db.build.levels import compressed_chunks
    from ttt_db.ranked.step import solve_core

    boards = 0
    spent = 0.0
    for level, _ in solve_core(tables):
        started = time.process_time()
        for _ in compressed_chunks(tables, level):
            pass
        spent += time.process_time() - started
        boards += level.sets.size
    return spent / max(1, boards)


def _solve_whole(tables: Any) -> None:
    from ttt_db.ranked.step import solve_level

    below = None
    for depth in range(tables.cells, -1, -1):
        below, _ = solve_level(tables, depth, below)


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
    levels: tuple[PlanLevel, ...]
    tables_memory: int  # the game's tables: a rank per mask, two levels' sets
    levels_memory: int  # the widest pair of adjacent levels' boards
    work_disk: int  # the work folder at its fullest: every level's chunks, and a cluster's two levels' files
    result_disk: int  # the database: every level's chunks
    cpu_seconds: float | None  # at this machine's measured rates (None: not measured)
    machine: Machine
    lacks: list[str] = field(default_factory=list)

    @property
    def total_slots(self) -> int:
        return sum(level.slots for level in self.levels)

    @property
    def widest(self) -> PlanLevel:
        return max(self.levels, key=lambda level: level.boards)

    @property
    def memory(self) -> int:
        return self.tables_memory + self.levels_memory

    def to_document(self) -> dict[str, Any]:
        widest = self.widest
        hours = None if self.cpu_seconds is None else self.cpu_seconds / 3600
        return {
            "game": self.game.name,
            "workers": self.workers,
            "slots": self.total_slots,
            "slots_by_depth": [level.slots for level in self.levels],
            "canonical_sets_by_depth": [level.canonical_sets for level in self.levels],
            "boards_by_depth": [level.boards for level in self.levels],
            "widest_level": {"depth": widest.depth, "boards": widest.boards, "slots": widest.slots},
            "memory_bytes": self.memory,
            "tables_memory_bytes": self.tables_memory,
            "levels_memory_bytes": self.levels_memory,
            "work_disk_bytes": self.work_disk,
            "result_disk_bytes": self.result_disk,
            "core_hours": hours,
            "hours_on_workers": None if hours is None else hours / self.workers,
            "machine": {
                "cores": self.machine.cores,
                "memory_bytes": self.machine.memory,
                "disk_free_bytes": self.machine.disk_free,
            },
            "lacks": self.lacks,
            "fits": not self.lacks,
        }


def plan_build(
    game: Game,
    workers: int = 1,
    work_dir: Path = Path("."),
    machine: Machine | None = None,
    *,
    measure: bool = True,
    cluster: bool = False,
) -> BuildPlan:
    """What building `game` on `workers` cores (`cluster`: Dask workers sharing the work folder)
    takes, and what `machine` (this one by default, with the work folder in `work_dir`) lacks for
    it; the time measured only where `measure`."""
    levels = tuple(plan_levels(game))
    n = game.cells
    pairs = [levels[d].boards + (levels[d + 1].boards if d < n else 0) for d in range(n + 1)]
    tables_by_depth = [
        4 * 2**n + 5 * (levels[d].sets + (levels[d + 1].sets if d < n else 0)) + 4 * (d + 1) * levels[d].patterns
        for d in range(n + 1)
    ]
    widest = max(range(n + 1), key=lambda d: pairs[d] + tables_by_depth[d])
    tables_memory = tables_by_depth[widest]
    levels_memory = pairs[widest] if not keeps_extras(game) else sum(level.boards for level in levels)
    stored = sum(int(level.boards * STORED_PER_BOARD) + CHUNK_ROW_BYTES * level.chunks for level in levels)
    work_disk = stored + (max(pairs) if cluster else 0)
    cpu_seconds = None
    if measure and n <= MAX_CELLS:
        rates = measured_rates(game)
        cpu_seconds = sum(
            level.boards * ((n - level.depth) * rates.per_move[level.depth] + rates.per_board_stored)
            for level in levels
        )
    machine = machine or Machine.here(work_dir)
    lacks = []
    if tables_memory + levels_memory > machine.memory:
        needed = _size(tables_memory + levels_memory)
        lacks.append(f"memory: {needed} for the tables and two levels; {_size(machine.memory)} here")
    if work_disk + stored > machine.disk_free:
        lacks.append(
            f"disk: {_size(work_disk + stored)} for the work folder and the database; {_size(machine.disk_free)} free"
        )
    return BuildPlan(
        game, workers, levels, tables_memory, levels_memory, work_disk, stored, cpu_seconds, machine, lacks
    )


def _size(count: int) -> str:
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6)):
        if count >= scale:
            return f"{count / scale:,.1f} {unit}"
    return f"{count / 1e3:,.1f} kB"


def plan_lines(plan: BuildPlan) -> list[str]:
    """The plan as text: `ttt-db build --plan`, and the refusal of a build that does not fit."""
    widest = plan.widest
    workers = f"{plan.workers} worker(s)"
    lines = [
        f"plan for {plan.game.name} on {workers}:",
        f"  slots:          {plan.total_slots:,} in {len(plan.levels)} levels; held: "
        f"{sum(level.boards for level in plan.levels):,} boards of canonical sets",
        f"  widest level:   depth {widest.depth}, {widest.boards:,} boards ({widest.canonical_sets:,} canonical sets)",
        f"  memory:         {_size(plan.memory)}: two adjacent levels {_size(plan.levels_memory)}, "
        f"tables {_size(plan.tables_memory)}",
        f"  work folder:    {_size(plan.work_disk)} at its fullest (--work-dir: shared storage for a cluster)",
        f"  the database:   about {_size(plan.result_disk)} (compressed chunks)",
    ]
    if plan.cpu_seconds is not None:
        hours = plan.cpu_seconds / 3600
        lines.append(
            f"  time:           {hours:,.2f} CPU hours at this machine's measured rate, "
            f"{hours / plan.workers:,.2f} h on {workers}"
        )
        lines.append("                  (timed just now on a sample of each level: it moves with this machine's load)")
    lines.append(
        f"  this machine:   {plan.machine.cores} cores, {_size(plan.machine.memory)} of memory, "
        f"{_size(plan.machine.disk_free)} free"
    )
    if plan.lacks:
        lines += ["  it lacks:", *(f"    {lack}" for lack in plan.lacks)]
    else:
        lines.append("  it fits")
    return lines
