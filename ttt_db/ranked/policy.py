"""A policy's play measured over held levels, exactly or in floating point: the kernels
`best_response_outcomes`, `policy_reach`, `gather_mass` and `largest_shares` behind typed faces,
each allocating its own scratch and spreading a level over the backend's workers. What the
measures mean is `ttt_db.checks.core_measures`'s.

Every face takes the policies as the kernels read them (`Policies`: the measured one first, then
the fixed opponents), `listed` the measured policy's odds listed per board of the level where it
answers with a list, and the `Numbers` measured in (exact fractions or floats).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Final, NamedTuple

from ttt_db.ranked.backend import Backend
from ttt_db.ranked.kernels.sets import SMALL_SIZE, TABLE_SIZE, Ints
from ttt_db.ranked.step import Level
from ttt_db.ranked.tables import RankedTables

RANGE_SLOTS: Final = 16_384
"""Boards of canonical sets per range that a level's best-response pass spreads over the workers."""
TIE: Final = 1e-12
"""In floating point, two expected scores closer than this are a tie (a best response's choice);
exact fractions tie only when equal."""
_ZERO: Final = Fraction(0)


@dataclass(frozen=True)
class Numbers:
    """What the passes count in: exact fractions in lists (`exact`: the interpreted kernels alone
    can hold them), else float64 arrays of the backend's; indices are int64 arrays either way."""

    backend: Backend
    exact: bool

    def zeros(self, size: int) -> Ints:
        return [_ZERO] * size if self.exact else self.backend.f64(size)

    def zeroed(self, buffer: Ints, size: int) -> Ints:
        """`size` zeros: in float64 the first `size` of `buffer` (`paged`), zeroed (its memory
        reused: a level's numbers mapped anew cost the system more than the pass that fills them),
        exactly new ones."""
        if self.exact:
            return self.zeros(size)
        part = buffer[:size]
        part.fill(0)
        return part

    def paged(self, size: int) -> Ints:
        """A buffer of `size` numbers for `zeroed` to reuse (nothing where exact: lists are made anew)."""
        return self.zeros(0) if self.exact else self.backend.f64_paged(size)

    def array(self, values: Sequence[Fraction]) -> Ints:
        return list(values) if self.exact else self.backend.f64_of([float(value) for value in values])

    def indices(self, values: Sequence[int]) -> Ints:
        return self.backend.i64_of(values)

    def number(self, value: Any) -> Fraction | float:
        """A figure as the measures give it: the fraction itself, else a Python float."""
        return value if self.exact else float(value)

    @property
    def tie(self) -> float:
        return 0.0 if self.exact else TIE

    def policies(self, kinds: Sequence[int], odds: Sequence[Fraction], keeps: Sequence[int]) -> Policies:
        """The policies as the kernels read them, from each one's kind, its odds (`move_share`'s
        layout, one policy after another) and whether it keeps the value (1: it never plays a move
        outside its kind)."""
        return Policies(self.indices(kinds), self.array(odds), self.indices(keeps))


class Policies(NamedTuple):
    """The measured policy, then the fixed opponents, as the kernels read them (`Numbers.policies`)."""

    kinds: Ints
    odds: Ints
    keeps: Ints


def best_response_level(
    tables: RankedTables,
    here: Level,
    below: Level | None,
    seats: Ints,
    below_out: Ints,
    out: Ints,
    policies: Policies,
    listed: tuple[Ints, Ints],
    numbers: Numbers,
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
            policies.kinds,
            policies.odds,
            *listed,
            numbers.tie,
            not numbers.exact,
            out,
            own.kids,
            own.worths,
            own.per,
            numbers.zeros(2 * sets.patterns),
            own.small,
            own.tab,
        )

    b.spread(sets.canonical, work, grain=max(1, RANGE_SLOTS // max(1, sets.patterns)))


def reach_level(
    tables: RankedTables,
    here: Level,
    below: Level | None,
    opponents: Ints,
    masses: tuple[Ints, Ints],
    policies: Policies,
    listed: tuple[Ints, Ints],
    lost: Ints,
    ends: Ints,
    numbers: Numbers,
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
                policies.keeps,
                mass,
                below_mass,
                policies.kinds,
                policies.odds,
                *listed,
                lost,
                ends,
                not numbers.exact,
                own.kids,
                own.worths,
                own.per,
                numbers.zeros(2 * here.sets.patterns * (len(opponents) + 1)),
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
    tables: RankedTables, level: Level, mass: Ints, width: int, at: int, lost: Ints, k: int, numbers: Numbers
) -> tuple[list[int], Ints, Ints]:
    """Of the level's boards, the (at most) k whose share (mass[j * width + at] * lost[j]) is
    largest, largest first: their boards and shares, and every positive share's sum (with the
    rounding it lost, `add_compensated`)."""
    where, shares, sums = tables.backend.i64(max(1, k)), numbers.zeros(max(1, k)), numbers.zeros(2)
    count = tables.run.largest_shares(level.sets.size, mass, width, at, lost, k, where, shares, sums)
    return [int(where[i]) for i in range(count)], shares, sums
