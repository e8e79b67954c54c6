"""The measures of a policy over the ranked core: for a policy the core plays itself (`CorePolicy`:
the database's perfect players, graded or not, and uniform random play), every position at once,
the AI never asked, on every game up to MEASURED_OVER_CORE_MAX_CELLS cells (`measure_policy`
chooses this over the board-by-board measures of `ttt_db.checks.measures`).

One backward walk of the core gives each board's outcomes in each seat against every opponent
(`policy_outcomes`), the levels' codes kept; a forward pass over them carries each class's reach
against perfect play and what the policy gives up there (`policy_reach`). Symmetric boards have
the same outcomes, so a class is measured once, at its representative: its reach is the sum of its
boards', and the costliest positions are classes, each shown at its representative. The kernels
count in exact fractions on a game of at most MEASURED_MAX_CELLS cells (interpreted), in float64
on a larger one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Final

from ttt_db.ais.calling import policy_at
from ttt_db.ais.protocol import CorePolicy, NamedAI
from ttt_db.checks.policy_figures import (
    BEST_RESPONSE,
    MEASURED_MAX_CELLS,
    ONE,
    SEATS,
    ZERO,
    Cost,
    Outcome,
    PolicyMeasures,
    Probability,
    SeatMeasures,
)
from ttt_db.game.rules import Value, play, score_seen_by, side_to_move, value_score
from ttt_db.ranked.backend import Backend
from ttt_db.ranked.codes import value_of_code
from ttt_db.ranked.kernel import SMALL_SIZE, TABLE_SIZE, Ints
from ttt_db.ranked.slots import board_of_slot, slot_of
from ttt_db.ranked.step import Level
from ttt_db.ranked.tables import RankedTables
from ttt_db.store.database import SolutionDatabase

KINDS: Final = {"best": 1, "fastest": 2}
"""A CorePolicy's moves as the kernels name them (`ttt_db.ranked.kernel.chosen_move`); 0 is a
best response."""
PERFECT: Final = CorePolicy("best", Fraction(1))
RANDOM: Final = CorePolicy("best", Fraction(0))


def _core_policy(named: NamedAI) -> CorePolicy:
    assert named.core_policy is not None, "refuse_unmeasurable refuses an AI the core does not play"
    return named.core_policy


OVER_CORE_PASSES: Final = 2
"""How many times the measures over the core meet each position (backward, then forward)."""
RANGE_SLOTS: Final = 16_384
"""Boards of a level given to one worker at least (a range of its canonical sets)."""
TIE: Final = 1e-12
"""In floating point, two expected scores closer than this are a tie (a best response's choice)."""


@dataclass(frozen=True)
class _Numbers:
    """What the kernels count in: exact fractions in lists (interpreted, a game of at most
    MEASURED_MAX_CELLS cells), else float64 arrays."""

    backend: Backend
    exact: bool

    @classmethod
    def of(cls, tables: RankedTables) -> _Numbers:
        return cls(tables.backend, not tables.backend.compiled and tables.cells <= MEASURED_MAX_CELLS)

    def zeros(self, size: int) -> Ints:
        return [ZERO] * size if self.exact else self.backend.f64(size)

    def array(self, values: list[Fraction]) -> Ints:
        return values if self.exact else self.backend.f64_of([float(value) for value in values])

    def number(self, value: Any) -> Probability:
        """A figure as the measures give it: the fraction itself, else a Python float."""
        return value if self.exact else float(value)

    @property
    def tie(self) -> float:
        return 0.0 if self.exact else TIE


@dataclass(frozen=True)
class _Scratch:
    """One worker's scratch for the kernels on one level: a set's child slots (`child_slots`)."""

    kids: Ints
    small: Ints
    tab: Ints

    @classmethod
    def of(cls, tables: RankedTables, level: Level) -> _Scratch:
        b = tables.backend
        return cls(b.i64(level.sets.patterns * tables.cells), b.i64(SMALL_SIZE), b.u32(TABLE_SIZE))


def measure_over_core(
    ai: NamedAI,
    database: SolutionDatabase,
    *,
    costliest: int = 10,
    against: Iterable[NamedAI] = (),
    progress: Callable[[int], None] | None = None,
) -> PolicyMeasures:
    """Every measure of `ai` as `measure_policy` gives it, over the ranked core: for a policy the
    core plays (`CorePolicy`), against opponents it plays too; exact on a game of at most
    MEASURED_MAX_CELLS cells, else in floating point. `progress(n)` hears the positions met so
    far, each twice (`OVER_CORE_PASSES`): backward for its outcomes (the full boards first), then
    forward for its reach (the empty board first)."""
    game = database.game
    policy = _core_policy(ai)
    opponents = {"perfect": PERFECT, BEST_RESPONSE: None, "random": RANDOM}
    opponents |= {named.name: _core_policy(named) for named in against}
    tables = database.core.tables
    b = tables.backend
    numbers = _Numbers.of(tables)
    policies = (policy, *opponents.values())
    kinds = b.i64_of([0 if found is None else KINDS[found.moves] for found in policies])
    odds = numbers.array([share for found in policies for share in _odds(found, tables.cells)])
    width = 4 * len(opponents)
    listed = _Listed.of(policy, tables, numbers)
    levels: dict[int, Level] = {}
    below_out: Ints = numbers.zeros(0)
    positions: dict[int, int] = {}
    for step in database.core.walk("backward"):
        here = levels[step.depth] = step.here
        out = numbers.zeros(here.sets.size * width)
        _outcomes(tables, numbers, (here, step.below), below_out, (kinds, odds, *listed.at(here)), out)
        below_out = out
        positions[step.depth] = step.counts.positions
        if progress is not None:
            progress(sum(positions.values()))
    measured = sum(positions.values())

    def forward(depth: int) -> None:
        if progress is not None:
            progress(measured + sum(positions[d] for d in range(depth + 1)))

    start = value_score(_start_value(levels[0]))
    costs, by_depth = _costs(tables, numbers, database, ai, levels, (kinds, odds), listed, costliest, forward)
    seats = {}
    for index, seat in enumerate(SEATS):
        against_seat = {}
        for o, name in enumerate(opponents):
            at = (index * len(opponents) + o) * 2
            win, loss = numbers.number(below_out[at]), numbers.number(below_out[at + 1])  # the empty board's
            against_seat[name] = Outcome(win, 1 - win - loss if numbers.exact else max(0.0, 1 - win - loss), loss)
        value = score_seen_by(start, seat)
        seats[seat] = SeatMeasures(seat, value, against_seat, by_depth[index], costs[index])
    return PolicyMeasures(ai.name, game, seats, measured, over_core=True)


def _odds(policy: CorePolicy | None, cells: int) -> list[Fraction]:
    """A policy's odds as the kernels read them (`move_share`): by (legal, chosen), a move's
    probability and a chosen move's; zeros for a best response (None)."""
    found = [ZERO] * (2 * (cells + 1) ** 2)
    if policy is not None:
        for legal in range(1, cells + 1):
            for chosen in range(1, legal + 1):
                at = (legal * (cells + 1) + chosen) * 2
                found[at : at + 2] = policy.odds(legal, chosen)
    return found


@dataclass(frozen=True)
class _Listed:
    """A tabular policy's boards as the kernels read them (`policy_outcomes`), by depth: each board
    of a canonical set its table lists (the others are read through their images there, which it
    lists alike), with its move odds."""

    numbers: _Numbers
    cells: int
    by_depth: dict[int, list[tuple[int, Mapping[int, Fraction]]]]  # (stored slot, odds)

    @classmethod
    def of(cls, policy: CorePolicy, tables: RankedTables, numbers: _Numbers) -> _Listed:
        by_depth: dict[int, list[tuple[int, Mapping[int, Fraction]]]] = {}
        for board, odds in (policy.table or {}).items():
            depth, slot = slot_of(board)
            by_depth.setdefault(depth, []).append((slot, odds))
        return cls(numbers, tables.cells, by_depth)

    def at(self, level: Level) -> tuple[Ints, Ints]:
        """The places in the level's codes of its listed boards, increasing, and their odds (`cells`
        a board)."""
        sets = level.sets
        found = []
        for slot, odds in self.by_depth.get(sets.depth, ()):
            at = sets.index_of(slot)
            if at is not None:
                found.append((at, odds))
        found.sort(key=lambda item: item[0])
        shares = [odds.get(cell, ZERO) for _, odds in found for cell in range(self.cells)]
        return self.numbers.backend.i64_of([j for j, _ in found]), self.numbers.array(shares)


def _start_value(level: Level) -> Value:
    decoded = value_of_code(int(level.codes[0]))
    assert decoded is not None
    return decoded[0]


def _outcomes(
    tables: RankedTables,
    numbers: _Numbers,
    levels: tuple[Level, Level | None],
    below_out: Ints,
    policies: tuple[Ints, Ints, Ints, Ints],
    out: Ints,
) -> None:
    """A level's outcomes into `out` from its children's (`policy_outcomes`; `levels` the level
    and the one below it), its canonical sets spread over the backend's workers (each range with its
    own scratch)."""
    here, below = levels
    b, sets = tables.backend, here.sets
    below_sets = (below or here).sets
    kinds, odds, listed, listed_odds = policies

    def work(_worker: int, start: int, stop: int) -> None:
        own = _Scratch.of(tables, here)  # a range's own: ranges run at once
        tables.run.policy_outcomes(
            tables.arrays,
            sets.arrays,
            start,
            stop,
            sets.insert if below is not None else b.u32(1),
            here.codes,
            below.codes if below is not None else here.codes,
            below_sets.arrays,
            below_out,
            kinds,
            odds,
            listed,
            listed_odds,
            numbers.tie,
            out,
            own.kids,
            own.small,
            own.tab,
        )

    b.spread(sets.canonical, work, grain=max(1, RANGE_SLOTS // max(1, sets.patterns)))


def _costs(
    tables: RankedTables,
    numbers: _Numbers,
    database: SolutionDatabase,
    ai: NamedAI,
    levels: dict[int, Level],
    policies: tuple[Ints, Ints],
    listed: _Listed,
    costliest: int,
    carried: Callable[[int], None],
) -> tuple[list[list[Cost]], list[dict[int, Probability]]]:
    """Each seat's costliest classes and its points lost by depth, against perfect play: reach
    carried forward level by level from the empty board (`policies` the policy and the perfect
    player first, as the kernels take them; `carried(depth)` told as each level is done)."""
    b, run, n = tables.backend, tables.run, tables.cells
    mass = numbers.zeros(levels[0].sets.size * 2)
    mass[0] = mass[1] = numbers.number(ONE)
    found: list[list[tuple[Probability, int, int]]] = [[], []]  # per seat: (share, depth, slot)
    by_depth: list[dict[int, Probability]] = [{}, {}]
    where, shares, sums = b.i64(max(1, costliest)), numbers.zeros(max(1, costliest)), numbers.zeros(1)
    for depth in range(n):
        here, below = levels[depth], levels[depth + 1]
        sets = here.sets
        lost = numbers.zeros(sets.size)
        below_mass = numbers.zeros(below.sets.size * 2)
        table = listed.at(here)

        def carry(
            _worker: int,
            first: int,
            stop: int,
            here: Level = here,
            below: Level = below,
            mass: Ints = mass,
            below_mass: Ints = below_mass,
            lost: Ints = lost,
            table: tuple[Ints, Ints] = table,
        ) -> None:
            own = _Scratch.of(tables, here)
            for seat in range(first, stop):
                run.policy_reach(
                    tables.arrays,
                    here.sets.arrays,
                    0,
                    here.sets.canonical,
                    here.sets.insert,
                    here.codes,
                    below.codes,
                    below.sets.arrays,
                    seat,
                    mass,
                    below_mass,
                    *policies,
                    *table,
                    lost,
                    own.kids,
                    own.small,
                    own.tab,
                )

        b.spread(2, carry)  # the two seats at once (compiled): they touch apart entries
        small, tab = b.i64(SMALL_SIZE), b.u32(TABLE_SIZE)
        run.gather_mass(tables.arrays, below.sets.arrays, 0, below.sets.canonical, below_mass, small, tab)
        seat = depth % 2
        sums[0] = numbers.number(ZERO)
        count = run.largest_shares(sets.size, mass, seat, lost, costliest, where, shares, sums)
        if sums[0] > 0:
            by_depth[seat][depth] = numbers.number(sums[0])
        found[seat] += [(numbers.number(shares[i]), depth, int(where[i])) for i in range(count)]
        mass = below_mass
        carried(depth)
    costs: list[list[Cost]] = [[], []]
    for seat in range(2):
        found[seat].sort(key=lambda item: -item[0])
        for share, depth, j in found[seat][:costliest]:
            costs[seat].append(_cost(database, ai, numbers, levels[depth], j, share))
        costs[seat].sort(key=lambda cost: (-cost.share, cost.ply, cost.board))
    return costs, by_depth


def _cost(database: SolutionDatabase, ai: NamedAI, numbers: _Numbers, level: Level, j: int, share: Probability) -> Cost:
    """The Cost of board j of a level (its canonical sets' numbering), its share of the expected
    score known: the board, its value for the mover, and each move the AI plays there."""
    sets = level.sets
    c, p = divmod(j, sets.patterns)
    board = board_of_slot(database.game, sets.depth, int(sets.cset[c]) * sets.patterns + p)
    decoded = value_of_code(int(level.codes[j]))
    assert decoded is not None
    value = value_score(decoded[0])
    mover = side_to_move(board)
    moves = []
    for move, q in policy_at(ai.play, board).items():
        child = play(board, move, mover)
        moves.append(
            (move, q, score_seen_by(value_score(database.core.value_of(child)[0]), mover, side_to_move(child)))
        )
    lost = numbers.number(sum((q * (value - move_value) for _, q, move_value in moves), ZERO))
    return Cost(board, sets.depth, value, share / lost, lost, tuple(moves))
