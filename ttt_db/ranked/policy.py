"""A policy's play measured over held levels, exactly or in floating point: the kernels
`best_response_outcomes`, `policy_reach`, `gather_mass` and `largest_shares` behind typed faces,
each allocating its own scratch and spreading a level over the backend's workers. What the
measures mean is `ttt_db.checks.core_measures`'s.

Every face takes the policies as the kernels read them: `policies` the kinds and odds of each
policy (the measured one first, then the fixed opponents), `listed` the measured policy's odds
listed per board of the level where it answers with a list, and `zeros(size)` the arrays of the
number type measured in (Fractions or floats).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from ttt_db.ranked.kernels.sets import SMALL_SIZE, TABLE_SIZE, Ints
from ttt_db.ranked.step import Level
from ttt_db.ranked.tables import RankedTables

RANGE_SLOTS: Final = 16_384
"""Boards of canonical sets per range that a level's best-response pass spreads over the workers."""

Zeros = Callable[[int], Ints]


def best_response_level(
    tables: RankedTables,
    here: Level,
    below: Level | None,
    seats: Ints,
    below_out: Ints,
    out: Ints,
    policies: tuple[Ints, Ints],
    listed: tuple[Ints, Ints],
    tie: float,
    zeros: Zeros,
) -> None:
    """A level's outcomes against a best response into `out` (per board, for each of `seats`: its
    win and loss probabilities) from its children's (`below_out`), its canonical sets spread over
    the backend's workers, each range with its own scratch."""
    b, sets = tables.backend, here.sets
    below_sets = (below or here).sets

    def work(_worker: int, start: int, stop: int) -> None:
        own = sets.move_scratch()  # a range's own: ranges run at once
        tables.run.best_response_outcomes(
            tables.arrays,
            sets.arrays,
            start,
            stop,
            sets.insert if below is not None else b.u32(1),
            here.codes,
            below.codes if below is not None else here.codes,
            below_sets.arrays,
            below_out,
            seats,
            *policies,
            *listed,
            tie,
            out,
            own.kids,
            own.worths,
            own.per,
            zeros(2 * sets.patterns),
            own.small,
            own.tab,
        )

    b.spread(sets.canonical, work, grain=max(1, RANGE_SLOTS // max(1, sets.patterns)))


def reach_level(
    tables: RankedTables,
    here: Level,
    below: Level | None,
    opponents: Ints,
    keeps: Ints,
    masses: tuple[Ints, Ints],
    policies: tuple[Ints, Ints],
    listed: tuple[Ints, Ints],
    lost: Ints,
    ends: Ints,
    zeros: Zeros,
) -> None:
    """One level's reach (`masses`: this level's, the level below's) passed to the level below, the
    measured policy in each seat against each of `opponents`, the two seats at once (compiled):
    they touch apart entries. `lost` takes each board's points given up, `ends` the finished games'
    totals (`add_compensated`)."""
    b = tables.backend
    mass, below_mass = masses
    bottom = below or here

    def carry(_worker: int, first: int, stop: int) -> None:
        own = here.sets.move_scratch()
        for seat in range(first, stop):
            tables.run.policy_reach(
                tables.arrays,
                here.sets.arrays,
                0,
                here.sets.canonical,
                here.sets.insert if below is not None else b.u32(1),
                here.codes,
                bottom.codes,
                bottom.sets.arrays,
                seat,
                opponents,
                keeps,
                mass,
                below_mass,
                *policies,
                *listed,
                lost,
                ends,
                own.kids,
                own.worths,
                own.per,
                zeros(2 * here.sets.patterns * (len(opponents) + 1)),
                own.small,
                own.tab,
            )

    b.spread(2, carry)


def gather_mass(tables: RankedTables, level: Level, mass: Ints, reaches: int) -> None:
    """Each board's mass (`reaches` per board, in each half of `mass`) moved to its class's
    representative."""
    b, sets = tables.backend, level.sets
    tables.run.gather_mass(
        tables.arrays, sets.arrays, 0, sets.canonical, mass, reaches, b.i64(SMALL_SIZE), b.u32(TABLE_SIZE)
    )


def largest_shares(
    tables: RankedTables, level: Level, mass: Ints, width: int, at: int, lost: Ints, k: int, zeros: Zeros
) -> tuple[list[int], Ints, Ints]:
    """Of the level's boards, the (at most) k whose share (mass[j * width + at] * lost[j]) is
    largest, largest first: their boards and shares, and every positive share's sum (with the
    rounding it lost, `add_compensated`)."""
    where, shares, sums = tables.backend.i64(max(1, k)), zeros(max(1, k)), zeros(2)
    count = tables.run.largest_shares(level.sets.size, mass, width, at, lost, k, where, shares, sums)
    return [int(where[i]) for i in range(count)], shares, sums
