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
from ttt_db.store.plain import TABLES_MAX_CELLS, writes_tables

STORED_PER_BOARD: Final = 0.3
"""Compressed bytes stored per board of a canonical set: above what the large games measure
(docs/performance.md); each chunk's row costs CHUNK_ROW_BYTES besides."""
CHUNK_ROW_BYTES: Final = 64
EXTRAS_STORED_PER_BOARD: Final = 3.0
"""Compressed bytes of odds and paths stored per board held, in a game that keeps them (above what
3x4k3 and 4x4k4 measure)."""
PLAIN_STORED_PER_BOARD: Final = 110
"""Bytes of the plain tables (a row per class, the named lists) per board held (above 3x4k3's)."""
EXTRAS_HELD_PER_BOARD: Final = 80
"""Bytes held per board of every level while a game that keeps extras counts them: each board's
odds and paths, each class's row (at or above what 4x4k4's build measures)."""
WRITING_BYTES: Final = 48 * 10**6
"""Held while the database is written: SQLite's page cache, the compressors' contexts, the kernels
that count and write (at or above what the small games' builds measure beyond the process)."""
PROCESS_BYTES: Final = 160 * 10**6
"""The process's own memory with the kernels loaded, where the plan does not measure it."""


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
    """This machine's CPU seconds per move of a board solved, level by level, as measured on
    `measured_on`; per board held, to lay a level out and compress it, to count its odds and paths
    and to write its plain tables; what starting takes (the imports, the kernels loaded); and the
    process's memory once it has solved and stored a small game."""

    per_move: tuple[float, ...]  # by depth
    per_board_stored: float
    per_board_extras: float
    per_board_plain: float
    starting: float
    measured_on: Game
    process_bytes: int


PROXY: Final = Game(4, 4, 4)
"""The game whose levels are laid out, compressed and counted to measure those rates: real codes,
in a second."""
PLAIN_PROXY: Final = Game(3, 3, 3)
"""The game whose plain tables' rows are made to measure that rate."""
SAMPLE_SETS: Final = 48
"""Canonical sets of a level solved to measure its rate."""
SAMPLED_SHARE: Final = 0.95
"""The levels holding this share of the moves are measured; each other level takes the nearest's rate."""


def measured_game(game: Game) -> Game:
    """The game whose levels are timed for `game`'s plan: the game itself up to MAX_CELLS cells,
    else the largest game within them of its k, its longer side shortened first."""
    rows, columns = game.rows, game.columns
    while rows * columns > MAX_CELLS:
        if columns >= rows:
            columns -= 1
        else:
            rows -= 1
    return Game(rows, columns, min(game.k, max(rows, columns)))


@cache
def _process_start() -> float:
    """The CPU this process spent before its kernels could solve (the imports, the kernels loaded
    and compiled): what a build in a fresh process pays before its first level. Taken once, at the
    first plan, so that a process that plans many games (a census) does not count its earlier
    plans' work as this one's start."""
    from ttt_db.ranked.backend import compiled_on_one_thread
    from ttt_db.ranked.tables import RankedTables

    _solve_whole(RankedTables(Game(2, 2, 2), compiled_on_one_thread()))  # compiled before anything is timed
    return time.process_time()


@cache
def measured_rates(game: Game) -> Rates:
    """The level step timed on SAMPLE_SETS canonical sets of every level of `measured_game(game)`
    (compiled, one thread), the layout and compression on PROXY's levels."""
    from ttt_db.ranked.backend import compiled_on_one_thread
    from ttt_db.ranked.tables import RankedTables

    one_thread = compiled_on_one_thread()
    starting = _process_start()
    game = measured_game(game)
    tables = RankedTables(game, one_thread)
    n = game.cells
    moves = {level.depth: level.boards * (n - level.depth) for level in plan_levels(game)}
    sampled: dict[int, float] = {}
    for depth in sorted(moves, key=lambda depth: -moves[depth]):  # the levels that hold the work
        if sum(moves[d] for d in sampled) >= SAMPLED_SHARE * sum(moves.values()) or moves[depth] == 0:
            break
        sampled[depth] = _sampled_rate(tables, depth)
    per_move = tuple(sampled[min(sampled, key=lambda d: abs(d - depth))] for depth in range(n + 1))
    stored, extras = _stored_rates(RankedTables(PROXY, one_thread))
    plain = _plain_rate(RankedTables(PLAIN_PROXY, one_thread))
    return Rates(per_move, stored, extras, plain, starting, game, _resident_bytes())


def _resident_bytes() -> int:
    """The memory this process holds now (its peak where the system does not say)."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        import resource
        import sys

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024


def _sampled_rate(tables: Any, depth: int) -> float:
    """CPU seconds per move of the level step on a sample of the level's canonical sets, their
    children's canonical sets made up (random codes) and renumbered to fit a small level below."""
    from dataclasses import replace

    import numpy as np

    from ttt_db.ranked.slots import colex_unrank
    from ttt_db.ranked.step import Level, solve_range

    sets, below = tables.level(depth), tables.level(depth + 1)
    chosen = np.unique(np.linspace(0, sets.canonical - 1, min(SAMPLE_SETS, sets.canonical)).astype(np.int64))
    needed: set[int] = set()
    for c in chosen.tolist():
        mask = colex_unrank(int(sets.cset[c]), depth)
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


def _stored_rates(tables: Any) -> tuple[float, float]:
    """CPU seconds per board held to lay a level out and compress it, and to count the odds and
    paths of every level, on PROXY."""
    from ttt_db.build.levels import compressed_chunks
    from ttt_db.ranked.step import solve_core
    from ttt_db.store.extras import count_extras

    levels = []
    spent = 0.0
    for level, _ in solve_core(tables):
        started = time.process_time()
        for _ in compressed_chunks(tables, level):
            pass
        spent += time.process_time() - started
        levels.append(level)
    boards = max(1, sum(level.sets.size for level in levels))
    started = time.process_time()
    count_extras(tables, levels[::-1])
    return spent / boards, (time.process_time() - started) / boards


def _plain_rate(tables: Any) -> float:
    """CPU seconds per board held to make the plain tables' rows, on PLAIN_PROXY."""
    from ttt_db.ranked.step import solve_core
    from ttt_db.store.plain import PlainLevels

    solved = list(solve_core(tables))[::-1]
    levels, counts = [level for level, _ in solved], [counted for _, counted in solved]
    started = time.process_time()
    for _ in PlainLevels(tables, levels, counts).rows():
        pass
    return (time.process_time() - started) / max(1, sum(level.sets.size for level in levels))


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
class WorkerMemory:
    """What one worker of a cluster build holds (`ttt_db.build.cluster`): the game's tables, the
    part of its task solved in its own memory, the process itself; and what each worker machine
    holds besides, once for all its workers: the level the tasks read, mapped from the work folder."""

    tables: int
    task_part: int
    process: int
    level_read: int

    @property
    def total(self) -> int:
        return self.tables + self.task_part + self.process

    @classmethod
    def of(cls, levels: tuple[PlanLevel, ...], tables: int, process: int) -> WorkerMemory:
        from ttt_db.build.cluster import part_sets

        part = max(min(level.canonical_sets, part_sets(level.patterns)) * level.patterns for level in levels)
        return cls(tables, part, process, max(level.boards for level in levels[1:]))


@dataclass(frozen=True, slots=True)
class BuildPlan:
    game: Game
    workers: int  # the cores a build on this machine solves on, or a cluster's workers
    cluster: bool
    levels: tuple[PlanLevel, ...]
    tables_memory: int  # the game's tables: a rank per mask, two levels' sets
    levels_memory: int  # the widest pair of adjacent levels' boards (every level's, where extras are kept)
    extras_memory: int  # the odds and paths counted, where the game keeps them
    process_memory: int  # the process itself with its kernels, and what writing the database holds
    work_disk: int  # the work folder at its fullest: every level's chunks, and a cluster's two levels' files
    result_disk: int  # the database: every level's chunks, the extras and the plain tables
    cpu_seconds: float | None  # at this machine's measured rates, a fresh process's start included (None: not measured)
    measured_on: Game | None  # the game whose rates were measured (itself up to MAX_CELLS cells)
    machine: Machine
    worker: WorkerMemory | None = None  # a cluster's worker (None: a build on this machine)
    start_cpu_seconds: float | None = None  # of `cpu_seconds`, the process's start
    lacks: list[str] = field(default_factory=list)

    @property
    def total_slots(self) -> int:
        return sum(level.slots for level in self.levels)

    @property
    def widest(self) -> PlanLevel:
        return max(self.levels, key=lambda level: level.boards)

    @property
    def started_cpu_seconds(self) -> float | None:
        """`cpu_seconds` in a process that has started already (a census's every game): without
        the process's start."""
        return None if self.cpu_seconds is None else self.cpu_seconds - (self.start_cpu_seconds or 0.0)

    @property
    def memory(self) -> int:
        return self.tables_memory + self.levels_memory + self.extras_memory + self.process_memory

    def to_document(self) -> dict[str, Any]:
        widest = self.widest
        hours = None if self.cpu_seconds is None else self.cpu_seconds / 3600
        return {
            "game": self.game.name,
            "workers": self.workers,
            "cluster": self.cluster,
            "slots": self.total_slots,
            "slots_by_depth": [level.slots for level in self.levels],
            "canonical_sets_by_depth": [level.canonical_sets for level in self.levels],
            "boards_by_depth": [level.boards for level in self.levels],
            "widest_level": {"depth": widest.depth, "boards": widest.boards, "slots": widest.slots},
            "memory_bytes": self.memory,
            "tables_memory_bytes": self.tables_memory,
            "levels_memory_bytes": self.levels_memory,
            "extras_memory_bytes": self.extras_memory,
            "process_memory_bytes": self.process_memory,
            "work_disk_bytes": self.work_disk,
            "result_disk_bytes": self.result_disk,
            "core_hours": hours,
            "hours_on_workers": None if hours is None else hours / self.workers,
            "measured_on": None if self.measured_on is None else self.measured_on.name,
            "machine": {
                "cores": self.machine.cores,
                "memory_bytes": self.machine.memory,
                "disk_free_bytes": self.machine.disk_free,
            },
            "worker": None
            if self.worker is None
            else {
                "memory_bytes": self.worker.total,
                "tables_memory_bytes": self.worker.tables,
                "task_part_bytes": self.worker.task_part,
                "process_memory_bytes": self.worker.process,
                "level_read_bytes": self.worker.level_read,
            },
            "lacks": self.lacks,
            "fits": not self.lacks,
        }


def plan_build(
    game: Game,
    workers: int | None = None,
    work_dir: Path = Path("."),
    machine: Machine | None = None,
    *,
    measure: bool = True,
    cluster: bool = False,
    tables: bool | None = None,
) -> BuildPlan:
    """What building `game` takes on `workers` cores (this machine's by default; `cluster`: Dask
    workers sharing the work folder), writing the plain tables where `tables` asks (`build
    --tables`'s rule), and what `machine` (this one by default, with the work folder in
    `work_dir`) lacks for it; the time measured only where `measure` (over MAX_CELLS cells, on
    `measured_game`'s levels)."""
    machine = machine or Machine.here(work_dir)
    levels = tuple(plan_levels(game))
    n = game.cells
    held = sum(level.boards for level in levels)
    pairs = [levels[d].boards + (levels[d + 1].boards if d < n else 0) for d in range(n + 1)]
    tables_by_depth = [
        4 * 2**n + 5 * (levels[d].sets + (levels[d + 1].sets if d < n else 0)) + 4 * (d + 1) * levels[d].patterns
        for d in range(n + 1)
    ]
    widest = max(range(n + 1), key=lambda d: pairs[d] + tables_by_depth[d])
    extras = keeps_extras(game)
    levels_memory = pairs[widest] if not extras else held
    chunks = sum(int(level.boards * STORED_PER_BOARD) + CHUNK_ROW_BYTES * level.chunks for level in levels)
    plain = n <= TABLES_MAX_CELLS and writes_tables(game, tables)
    stored = (
        chunks + int(held * EXTRAS_STORED_PER_BOARD if extras else 0) + (held * PLAIN_STORED_PER_BOARD if plain else 0)
    )
    work_disk = chunks + (max(pairs) if cluster else 0)
    rates = measured_rates(game) if measure else None
    process_alone = rates.process_bytes if rates is not None else PROCESS_BYTES
    plan = BuildPlan(
        game,
        workers or machine.cores,
        cluster,
        levels,
        tables_by_depth[widest],
        levels_memory,
        held * EXTRAS_HELD_PER_BOARD if extras else 0,
        process_alone + WRITING_BYTES,
        work_disk,
        stored,
        None if rates is None else _cpu_seconds(levels, rates, extras, plain),
        None if rates is None else rates.measured_on,
        machine,
        WorkerMemory.of(levels, tables_by_depth[widest], process_alone) if cluster else None,
        None if rates is None else rates.starting,
    )
    if plan.memory > machine.memory:
        plan.lacks.append(f"memory: {size_text(plan.memory)} for the build; {size_text(machine.memory)} here")
    if work_disk + stored > machine.disk_free:
        plan.lacks.append(
            f"disk: {size_text(work_disk + stored)} for the work folder and the database; "
            f"{size_text(machine.disk_free)} free"
        )
    return plan


def _cpu_seconds(levels: tuple[PlanLevel, ...], rates: Rates, extras: bool, plain: bool) -> float:
    """The CPU time of a build: starting, solving and storing every level (at each level's measured
    rate, or where the rates are another game's, at their average over that game's moves), counting
    the odds and paths and making the plain tables where the build does."""
    n = len(levels) - 1
    per_move = rates.per_move
    if len(per_move) != n + 1:
        measured = plan_levels(rates.measured_on)
        m = len(measured) - 1
        moves = [level.boards * (m - level.depth) for level in measured]
        average = sum(rate * count for rate, count in zip(per_move, moves, strict=True)) / max(1, sum(moves))
        per_move = (average,) * (n + 1)
    per_board = (
        rates.per_board_stored + (rates.per_board_extras if extras else 0) + (rates.per_board_plain if plain else 0)
    )
    return rates.starting + sum(
        level.boards * ((n - level.depth) * per_move[level.depth] + per_board) for level in levels
    )


def size_text(count: int) -> str:
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6)):
        if count >= scale:
            return f"{count / scale:,.1f} {unit}"
    return f"{count / 1e3:,.1f} kB"


def duration_text(seconds: float) -> str:
    """A CPU time as a reader takes it in: seconds, minutes, hours or days."""
    for unit, scale in (("days", 86400), ("h", 3600), ("min", 60)):
        if seconds >= 2 * scale:
            return f"{seconds / scale:,.1f} {unit}"
    return f"{seconds:,.1f} s" if seconds >= 0.1 else "under 0.1 s"


def plan_lines(plan: BuildPlan) -> list[str]:
    """The plan as text: `ttt-db build --plan`, and the refusal of a build that does not fit."""
    widest = plan.widest
    on = f"a Dask cluster of {plan.workers} workers" if plan.cluster else f"this machine's {plan.workers} cores"
    held_parts = [f"two adjacent levels {size_text(plan.levels_memory)}"]
    if plan.extras_memory:
        held_parts = [f"every level {size_text(plan.levels_memory)}", f"odds and paths {size_text(plan.extras_memory)}"]
    lines = [
        f"plan for {plan.game.name} on {on}:",
        f"  slots:          {plan.total_slots:,} in {len(plan.levels)} levels; held: "
        f"{sum(level.boards for level in plan.levels):,} boards of canonical sets",
        f"  widest level:   depth {widest.depth}, {widest.boards:,} boards ({widest.canonical_sets:,} canonical sets)",
        f"  memory:         {size_text(plan.memory)}: {', '.join(held_parts)}, tables {size_text(plan.tables_memory)}, "
        f"the process and its writing {size_text(plan.process_memory)}",
        *(
            []
            if plan.worker is None
            else [
                f"  per worker:     {size_text(plan.worker.total)}: tables {size_text(plan.worker.tables)}, "
                f"a task's part {size_text(plan.worker.task_part)}, the process {size_text(plan.worker.process)}",
                f"                  and each worker machine, once for its workers: the level they read, up to "
                f"{size_text(plan.worker.level_read)}",
            ]
        ),
        f"  work folder:    {size_text(plan.work_disk)} at its fullest (--work-dir: shared storage for a cluster)",
        f"  the database:   about {size_text(plan.result_disk)}",
    ]
    if plan.cpu_seconds is not None:
        where = "this machine's measured rate"
        if plan.measured_on is not None and plan.measured_on != plan.game:
            where = f"{plan.measured_on.name}'s rate measured on this machine (no game over {MAX_CELLS} cells is)"
        lines.append(
            f"  time:           {duration_text(plan.cpu_seconds)} of CPU at {where}, "
            f"{duration_text(plan.cpu_seconds / plan.workers)} on {on}"
        )
        if plan.lacks:
            lines.append(
                f"                  a cluster divides it by its workers: {duration_text(plan.cpu_seconds / 64)} on 64 "
                "(docs/scale.md)"
            )
        lines.append("                  (timed just now on a sample of each level: it moves with this machine's load)")
    lines.append(
        f"  this machine:   {plan.machine.cores} cores, {size_text(plan.machine.memory)} of memory, "
        f"{size_text(plan.machine.disk_free)} free"
    )
    if plan.lacks:
        lines += ["  it lacks:", *(f"    {lack}" for lack in plan.lacks)]
    else:
        lines.append("  it fits")
    return lines
