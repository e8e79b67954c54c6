"""The measures of a policy over the ranked core: for a policy the core plays itself (`CorePolicy`:
the database's perfect players, graded or not, and uniform random play), every position at once,
the AI never asked, on every game up to MEASURED_OVER_CORE_MAX_CELLS cells (`measure_policy`
chooses this over the board-by-board measures of `ttt_db.checks.measures`).

The walk that holds the core's levels keeps their codes; passes over them follow. Against a
best response the outcomes are counted backward, the full boards first (`best_response_outcomes`:
the opponent picks the child worst for the policy); against a fixed opponent (perfect play,
uniform random play, each `against`) the probability of reaching each class is carried forward
from the empty board (`policy_reach`), and the outcomes are the reach of the boards where the game
ends: one forward walk for every opponent at once, which also gives what the policy gives up where
perfect play lets it reach. A pass keeps two levels' numbers, 8 bytes each per board and seat
(backward, a win and a loss; forward, a reach per opponent), in two buffers as wide as the largest
level that every pass reuses (memory mapped anew costs more than the numbers written in it): where
they would pass PASS_BYTES, the seats or the opponents are spread over more passes (`_Passes`).
Symmetric boards have the same outcomes, so a class is measured once, at its representative: its reach is the sum
of its boards', and the costliest positions are classes, each shown at its representative. The
kernels count in exact fractions on a game of at most MEASURED_MAX_CELLS cells (interpreted,
whatever backend the core reads with), in float64 on a larger one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Final

from ttt_db.ais.calling import policy_at
from ttt_db.ais.protocol import CorePolicy, NamedAI
from ttt_db.checks.policy_figures import (
    BEST_RESPONSE,
    MEASURED_MAX_CELLS,
    ONE,
    OPPONENTS,
    SEATS,
    ZERO,
    Cost,
    Outcome,
    PolicyMeasures,
    Probability,
    SeatMeasures,
)
from ttt_db.game.rules import Mark, play, score_seen_by, side_to_move, value_score
from ttt_db.ranked.backend import interpreted
from ttt_db.ranked.codes import value_of_code
from ttt_db.ranked.kernels.sets import Ints
from ttt_db.ranked.policy import (
    Numbers,
    Policies,
    best_response_level,
    gather_mass,
    largest_shares,
    reach_level,
)
from ttt_db.ranked.slots import board_of_slot, slot_of
from ttt_db.ranked.step import Level
from ttt_db.ranked.tables import RankedTables
from ttt_db.store.database import SolutionDatabase

KINDS: Final = {"best": 1, "fastest": 2}
"""A CorePolicy's moves as the kernels name them (`ttt_db.ranked.kernels.moves.chosen_move`); 0 is a
best response."""
PERFECT: Final = CorePolicy("best", Fraction(1))
RANDOM: Final = CorePolicy("best", Fraction(0))


def _core_policy(named: NamedAI) -> CorePolicy:
    assert named.core_policy is not None, "refuse_unmeasurable refuses an AI the core does not play"
    return named.core_policy


PASS_BYTES: Final = 9 << 28
"""What one pass's numbers may take: two buffers, each of them as wide as the largest level (8
bytes a number; the forward pass against perfect play holds one more for each board of one level:
what the policy gives up there). The seats (backward) or the opponents (forward) are spread over as
many passes as keep them within it, one a pass at least; the passes share the buffers."""


@dataclass(frozen=True)
class _Passes:
    """How the measures meet the core after the walk that holds its levels: backward passes, each
    for some seats (0 o, 1 x) against a best response (`best_response_outcomes`), then forward
    passes, each for some fixed opponents (indices of the kernels' policies, perfect play the
    first pass's first: its reach also gives the costs; `policy_reach`)."""

    backward: tuple[tuple[int, ...], ...]
    forward: tuple[tuple[int, ...], ...]

    @classmethod
    def of(cls, sizes: list[int], opponents: int, best_response: bool = True) -> _Passes:
        """For levels of `sizes` boards and `opponents` fixed opponents: a seat takes a win and a
        loss a board backward (none without a best response), an opponent its reach in each seat
        forward, in each of two buffers as wide as the largest level (`_Walk.buffers`)."""
        each = max(1, PASS_BYTES // (2 * max(sizes) * 2 * 8))
        return cls(_grouped(range(2 if best_response else 0), each), _grouped(range(1, opponents + 1), each))

    @property
    def count(self) -> int:
        """How many times a position is met: the walk holding the levels, then every pass."""
        return 1 + len(self.backward) + len(self.forward)

    @property
    def width(self) -> int:
        """The numbers a board of the widest pass takes in each of its two buffers (`_Walk.buffers`)."""
        return 2 * max(map(len, self.backward + self.forward), default=1)


def _grouped(items: range, each: int) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(items[i : i + each]) for i in range(0, len(items), each))


def over_core_passes(database: SolutionDatabase, against: Iterable[NamedAI] = (), best_response: bool = True) -> int:
    """How many times `measure_over_core` meets each position of the database's core, measuring
    against the AIs `against` too, and a best response unless told not to (what its `progress`
    counts up to, times the positions)."""
    return _Passes.of(_level_sizes(database), len(_fixed_opponents(against)), best_response).count


def _level_sizes(database: SolutionDatabase) -> list[int]:
    """The boards of each level of the core, the empty board's first."""
    tables = database.core.tables
    return [tables.level(depth).size for depth in range(tables.cells + 1)]


def _fixed_opponents(against: Iterable[NamedAI]) -> dict[str, CorePolicy]:
    """The opponents whose play is fixed, by name: perfect play, uniform random play, then each AI
    of `against` (one named as a default replaces it)."""
    return {"perfect": PERFECT, "random": RANDOM} | {named.name: _core_policy(named) for named in against}


def measure_over_core(
    ai: NamedAI,
    database: SolutionDatabase,
    *,
    costliest: int = 10,
    against: Iterable[NamedAI] = (),
    progress: Callable[[int], None] | None = None,
    best_response: bool = True,
) -> PolicyMeasures:
    """Every measure of `ai` as `measure_policy` gives it, over the ranked core: for a policy the
    core plays (`CorePolicy`), against opponents it plays too; exact on a game of at most
    MEASURED_MAX_CELLS cells, else in floating point. `progress(n)` hears the positions met so
    far, each `over_core_passes` times: the walk holding the levels (the full boards first), the
    passes backward for a best response's outcomes (none with `best_response` False), then those
    forward for the fixed opponents' (the empty board first)."""
    fixed = _fixed_opponents(against)
    sizes = _level_sizes(database)
    passes = _Passes.of(sizes, len(fixed), best_response)
    walk, positions = _walk_for(ai, database, fixed, progress, max(sizes), passes.width)
    worst_case: dict[int, tuple[Probability, Probability]] = {}
    for chosen in passes.backward:
        worst_case |= walk.best_response(chosen)
    found: dict[tuple[int, int], tuple[Probability, Probability]] = {}
    costs: list[list[Cost]] = [[], []]
    by_depth: list[dict[int, Probability]] = [{}, {}]
    for group in passes.forward:  # perfect play (policy 1) is the first group's first: the costs come with it
        reached = _Reached(costliest, [[], []], [{}, {}]) if group[0] == 1 else None
        found |= walk.forward(group, reached)
        if reached is not None:
            costs, by_depth = _costs(database, ai, walk.numbers, walk.levels, reached)
    start = value_score(walk.levels[0].start_value())
    seats = {}
    for index, seat in enumerate(SEATS):
        of_fixed = {name: found[index, i + 1] for i, name in enumerate(fixed)}
        in_order = {
            name: worst_case[index] if name == BEST_RESPONSE else of_fixed[name]
            for name in OPPONENTS
            if name != BEST_RESPONSE or best_response
        }
        in_order |= of_fixed  # then each `against` AI
        against_seat = {name: _outcome(walk.numbers, win, loss) for name, (win, loss) in in_order.items()}
        seats[seat] = SeatMeasures(seat, score_seen_by(start, seat), against_seat, by_depth[index], costs[index])
    return PolicyMeasures(ai.name, database.game, seats, sum(positions.values()), over_core=True)


def match_over_core(ai: NamedAI, opponent: NamedAI, database: SolutionDatabase) -> dict[Mark, Outcome]:
    """The outcome of `ai` against `opponent` (both played by the core) from the empty board, as o
    and as x, over the core: the levels held, then one pass forward against `opponent` alone."""
    fixed = {opponent.name: _core_policy(opponent)}
    walk, _positions = _walk_for(ai, database, fixed, None, max(_level_sizes(database)), 2)
    found = walk.forward((1,), None)
    return {seat: _outcome(walk.numbers, *found[index, 1]) for index, seat in enumerate(SEATS)}


def _walk_for(
    ai: NamedAI,
    database: SolutionDatabase,
    fixed: dict[str, CorePolicy],
    progress: Callable[[int], None] | None,
    widest: int,
    width: int,
) -> tuple[_Walk, dict[int, int]]:
    """Every level of the core held (the walk backward, the full boards first) for the passes of
    `ai` against the `fixed` opponents (the kernels' policies 1, 2, ...), and each level's
    positions; `progress` hears the positions met, in the walk and then in each pass. The passes'
    buffers (`width` numbers a board of the largest level, `widest` boards) are made in float64
    on a thread of their own while the walk reads the levels: the system takes seconds to hand
    out their memory, which it can do beside the walk."""
    from concurrent.futures import ThreadPoolExecutor

    policy = _core_policy(ai)
    tables = _measuring_tables(database)
    numbers = Numbers(tables.backend, exact=not tables.backend.compiled and tables.cells <= MEASURED_MAX_CELLS)
    every = (policy, *fixed.values())
    kinds = [KINDS[found.moves] for found in every]
    odds = [share for found in every for share in _odds(found, tables.cells)]
    keeps = [int(found.skill == 1 and found.table is None) for found in every]  # a perfect player's
    policies = numbers.policies(kinds, odds, keeps)
    levels: dict[int, Level] = {}
    positions: dict[int, int] = {}
    met = 0

    def met_level(depth: int) -> None:
        nonlocal met
        met += positions[depth]
        if progress is not None:
            progress(met)

    with ThreadPoolExecutor(1) as beside:
        made = beside.submit(_buffers, numbers, widest, width) if not numbers.exact else None
        for step in database.core.walk("backward", tables=tables):
            levels[step.depth] = step.here
            positions[step.depth] = step.counts.positions
            met_level(step.depth)
        held = [] if made is None else made.result()
    listed = _Listed.of(policy, tables, numbers)
    return _Walk(tables, numbers, levels, policies, listed, met_level, held), positions


def _measuring_tables(database: SolutionDatabase) -> RankedTables:
    """The tables the measures walk on: the interpreted kernels' for a game of at most
    MEASURED_MAX_CELLS cells, whose lists hold exact fractions (numpy's arrays cannot), else the
    core's own."""
    tables = database.core.tables
    if tables.cells > MEASURED_MAX_CELLS or not tables.backend.compiled:
        return tables
    return RankedTables(database.game, interpreted())


def _outcome(numbers: Numbers, win: Any, loss: Any) -> Outcome:
    """An outcome from the kernels' win and loss (a draw is the rest, never below 0 in float64)."""
    win, loss = numbers.number(win), numbers.number(loss)
    return Outcome(win, 1 - win - loss if numbers.exact else max(0.0, 1 - win - loss), loss)


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
    """A tabular policy's boards as the kernels read them (`best_response_outcomes`,
    `policy_reach`), by depth: each board of a canonical set its table lists (the others are read
    through their images there, which it lists alike), with its move odds."""

    numbers: Numbers
    cells: int
    by_depth: dict[int, list[tuple[int, Mapping[int, Fraction]]]]  # (stored slot, odds)

    @classmethod
    def of(cls, policy: CorePolicy, tables: RankedTables, numbers: Numbers) -> _Listed:
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
        return self.numbers.indices([j for j, _ in found]), self.numbers.array(shares)


@dataclass(frozen=True)
class _Reached:
    """What the forward pass against perfect play finds: per seat the `costliest` boards it meets
    (share, depth, place in the level's codes) and the points lost by depth."""

    costliest: int
    found: list[list[tuple[Probability, int, int]]]
    by_depth: list[dict[int, Probability]]


@dataclass(frozen=True)
class _Walk:
    """The passes over the held levels (`_Passes`), and what they share: the kernels' policies
    (kinds and odds: the measured policy, then the fixed opponents) and `met(depth)`, told as each
    level is done."""

    tables: RankedTables
    numbers: Numbers
    levels: dict[int, Level]
    policies: Policies
    listed: _Listed
    met: Callable[[int], None]
    held: list[Ints] = field(default_factory=list)  # the numbers' buffers, kept from pass to pass

    def buffers(self, width: int) -> tuple[Ints, Ints, Ints]:
        """`_buffers` of `width` numbers a board: the same memory from one pass to the next
        (`Numbers.zeroed`), the walk's own where they are wide enough."""
        widest = max(level.sets.size for level in self.levels.values())
        if not self.held or len(self.held[0]) < widest * width:  # exact numbers hold none (`Numbers.paged`)
            self.held.clear()  # the narrower ones let go before the wider are mapped
            self.held.extend(_buffers(self.numbers, widest, width))
        return self.held[0], self.held[1], self.held[2]

    def best_response(self, seats: tuple[int, ...]) -> dict[int, tuple[Probability, Probability]]:
        """Each of `seats`' (0 o, 1 x) win and loss probabilities from the empty board against a
        best response: the levels backward, the full boards first."""
        below_out: Ints = self.numbers.zeros(0)
        chosen = self.numbers.indices(seats)
        spare, other, _ = self.buffers(2 * len(seats))
        for depth in range(self.tables.cells, -1, -1):
            here = self.levels[depth]
            out = self.numbers.zeroed(spare, here.sets.size * 2 * len(seats))
            spare, other = other, spare
            best_response_level(
                self.tables,
                here,
                self.levels.get(depth + 1),
                chosen,
                below_out,
                out,
                self.policies,
                self.listed.at(here),
                self.numbers,
            )
            below_out = out
            self.met(depth)
        return {seat: (below_out[i * 2], below_out[i * 2 + 1]) for i, seat in enumerate(seats)}

    def forward(
        self, group: tuple[int, ...], reached: _Reached | None
    ) -> dict[tuple[int, int], tuple[Probability, Probability]]:
        """Each seat's win and loss probabilities from the empty board against each opponent of
        `group` (indices of the policies), by carrying the play's reach forward level by level
        (`policy_reach`); into `reached` (the group's first is then perfect play), also the boards
        where the policy gives up the most against it."""
        tables, numbers = self.tables, self.numbers
        nf = len(group)  # a board's reach in each seat: a seat's half of the level's array, then the other's
        opponents = numbers.indices(group)
        spare, other, losses = self.buffers(2 * nf)
        mass = numbers.zeroed(other, self.levels[0].sets.size * 2 * nf)
        for i in range(2 * nf):
            mass[i] = numbers.number(ONE)
        ends = numbers.zeros(8 * nf)  # each total, then the rounding it lost (`add_compensated`)
        for depth in range(tables.cells + 1):
            here, below = self.levels[depth], self.levels.get(depth + 1)
            lost = numbers.zeroed(losses, here.sets.size if reached is not None else 0)
            below_mass = numbers.zeroed(spare, below.sets.size * 2 * nf if below is not None else 0)
            spare, other = other, spare
            reach_level(
                tables,
                here,
                below,
                opponents,
                (mass, below_mass),
                self.policies,
                self.listed.at(here),
                lost,
                ends,
                numbers,
            )
            if below is not None:
                gather_mass(tables, below, below_mass, nf)
            if reached is not None and depth < tables.cells:
                seat = depth % 2
                perfect = seat * here.sets.size * nf  # perfect play, the group's first, in the seat's half
                where, shares, sums = largest_shares(tables, here, mass, nf, perfect, lost, reached.costliest, numbers)
                if sums[0] > 0:
                    reached.by_depth[seat][depth] = numbers.number(sums[0] + sums[1])
                reached.found[seat] += [(numbers.number(shares[i]), depth, j) for i, j in enumerate(where)]
            mass = below_mass
            self.met(depth)

        def total(at: int) -> Probability:
            return numbers.number(ends[at] + ends[4 * nf + at])  # with the rounding it lost

        return {
            (seat, f): (total((seat * nf + i) * 2), total((seat * nf + i) * 2 + 1))
            for seat in range(2)
            for i, f in enumerate(group)
        }


def _buffers(numbers: Numbers, widest: int, width: int) -> list[Ints]:
    """Two buffers of `width` numbers a board of the largest level (`widest` boards), and one of a
    number a board, their memory written once (`Numbers.paged`: mapped as it is first written)."""
    found = [numbers.paged(widest * width), numbers.paged(widest * width), numbers.paged(widest)]
    for buffer in found:
        numbers.zeroed(buffer, len(buffer))
    return found


def _costs(
    database: SolutionDatabase,
    ai: NamedAI,
    numbers: Numbers,
    levels: dict[int, Level],
    reached: _Reached,
) -> tuple[list[list[Cost]], list[dict[int, Probability]]]:
    """Each seat's costliest classes against perfect play, as `Cost`s, and its points lost by
    depth."""
    costs: list[list[Cost]] = [[], []]
    for seat in range(2):
        reached.found[seat].sort(key=lambda item: -item[0])
        for share, depth, j in reached.found[seat][: reached.costliest]:
            costs[seat].append(_cost(database, ai, numbers, levels[depth], j, share))
        costs[seat].sort(key=lambda cost: (-cost.share, cost.ply, cost.board))
    return costs, reached.by_depth


def _cost(database: SolutionDatabase, ai: NamedAI, numbers: Numbers, level: Level, j: int, share: Probability) -> Cost:
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
