"""How good a policy is, exactly: its outcome probabilities from the empty board against the
perfect player (uniform among the database's best moves), a best response (the worst case) and
uniform random play, in either seat; NashConv and exploitability in OpenSpiel's units (self-play
policy, both seats); and where it loses its points against perfect play.

Every figure is an exact fraction, computed over positions (not histories): a position's outcome
distribution is the same however it was reached, so each is computed once. The policy is asked
only at the positions its own play reaches, with every reply of the opponent. An AI that answers
a collection of moves plays each with the same probability; one that answers probabilities
(`ttt_db.ais.calling.answer_at`) plays them as given. A policy the core plays itself (a
`CorePolicy`) is never asked: it is measured over the core (`ttt_db.checks.core_measures`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from functools import partial
from math import gcd, lcm
from typing import Final

from ttt_db.ais.calling import Policy, answer_at, answers_ahead, as_policy, ask_ahead, policy_at
from ttt_db.ais.protocol import CorePolicy, NamedAI
from ttt_db.checks.budget import CheckBudget
from ttt_db.checks.policy_figures import (
    BEST_RESPONSE,
    MEASURED_MAX_CELLS,
    MEASURED_OVER_CORE_MAX_CELLS,
    ONE,
    SEATS,
    ZERO,
    Cost,
    Outcome,
    PolicyMeasures,
    Probability,
    SeatMeasures,
)
from ttt_db.errors import InputError
from ttt_db.game.definition import Game
from ttt_db.game.rules import Mark, legal_moves, play, score_seen_by, side_to_move, status, value_score
from ttt_db.store.database import SolutionDatabase

PolicyOf = Callable[[str], Policy]
AskedPolicy = Callable[[str], Policy | None]
"""The measured policy: None at a position it was not asked at (its budget spent)."""
Exact = tuple[int, int, int, int]
"""An outcome as integers: (win, draw, loss, denominator), kept in lowest terms; the walk adds and
scales these without a Fraction per operation."""


WON: Final[Exact] = (1, 0, 0, 1)
DRAWN: Final[Exact] = (0, 1, 0, 1)
LOST: Final[Exact] = (0, 0, 1, 1)
OUTCOME_OF_VALUE: Final[dict[int, Exact]] = {1: WON, 0: DRAWN, -1: LOST}
"""A sure outcome by its score for the seat: +1 won, 0 drawn, -1 lost."""


def _extreme(outcomes: list[Exact], *, highest: bool) -> Exact:
    """The outcome with the highest (else the lowest) score, the most wins (else losses) breaking
    a tie; compared exactly, as integers over a common denominator."""
    common = lcm(*(exact[3] for exact in outcomes))

    def key(exact: Exact) -> tuple[int, int]:
        scale = common // exact[3]
        score = (exact[0] - exact[2]) * scale
        return (score, exact[0] * scale) if highest else (score, -exact[2] * scale)

    return max(outcomes, key=key) if highest else min(outcomes, key=key)


def _mixed(shares: list[tuple[int, int]], outcomes: list[Exact]) -> Exact:
    """The outcome of playing each outcome with its probability (a share: numerator, denominator), exactly."""
    denominator = lcm(*(share[1] * exact[3] for share, exact in zip(shares, outcomes, strict=True)))
    win = draw = loss = 0
    for (numerator, below), (w, d, lo, den) in zip(shares, outcomes, strict=True):
        scale = numerator * (denominator // (below * den))
        win += w * scale
        draw += d * scale
        loss += lo * scale
    common = gcd(gcd(win, draw), gcd(loss, denominator))
    return (win // common, draw // common, loss // common, denominator // common)


Node = tuple[str, Mark, dict[int, str]]
"""A position as the walks read it: how it stands (`status`), the side to move, its children by move."""


@dataclass
class _Tree:
    """The positions the walks meet, each made once for every seat and opponent."""

    game: Game
    nodes: dict[str, Node] = field(default_factory=dict)

    def node(self, board: str) -> Node:
        found = self.nodes.get(board)
        if found is None:
            ended, mover = status(board, self.game), side_to_move(board)
            children = {} if ended != "playing" else {m: play(board, m, mover) for m in legal_moves(board, self.game)}
            found = self.nodes[board] = (ended, mover, children)
        return found


@dataclass
class _Seat:
    """One seat's walk against every opponent at once: the policy's answers and the positions'
    values, each looked up once; an opponent is a policy, or None for the best response."""

    seat: Mark
    tree: _Tree
    policy: AskedPolicy
    opponents: tuple[PolicyOf | None, ...] = ()
    best_case: bool = False  # at a position not asked, the policy plays its best (else its worst)
    bound: Callable[[str], tuple[Exact, ...]] | None = None  # ... else a search below it (a larger game's: too much)
    found: dict[str, tuple[Exact, ...]] = field(default_factory=dict)

    def outcomes(self, names: Iterable[str], board: str) -> dict[str, Outcome]:
        """The outcome from `board` of the policy in its seat against each opponent, by their names
        (in the order of `opponents`)."""
        return {
            name: Outcome(Fraction(win, denominator), Fraction(draw, denominator), Fraction(loss, denominator))
            for name, (win, draw, loss, denominator) in zip(names, self._exact(board), strict=True)
        }

    def _exact(self, board: str) -> tuple[Exact, ...]:
        found = self.found.get(board)
        if found is None:
            found = self.found[board] = self._outcome(board)
        return found

    def _outcome(self, board: str) -> tuple[Exact, ...]:
        ended, mover, children = self.tree.node(board)
        if ended != "playing":
            end = DRAWN if ended == "draw" else WON if ended == self.seat else LOST
            return (end,) * len(self.opponents)
        exact = self._exact
        if mover == self.seat:
            asked = self.policy(board)
            if asked is None:  # not asked: the best or the worst it could do from here
                if self.bound is not None:
                    return self.bound(board)
                below = [exact(child) for child in children.values()]
                return tuple(
                    _extreme([outcomes[i] for outcomes in below], highest=self.best_case)
                    for i in range(len(self.opponents))
                )
            shares = [(p.numerator, p.denominator) for p in asked.values()]
            below = [exact(children[move]) for move in asked]
            return tuple(_mixed(shares, [outcomes[i] for outcomes in below]) for i in range(len(self.opponents)))
        found = []
        for i, opponent in enumerate(self.opponents):
            if opponent is None:  # a best response: the child worst for the seat
                found.append(_extreme([exact(child)[i] for child in children.values()], highest=False))
            else:
                chosen = opponent(board)
                shares = [(p.numerator, p.denominator) for p in chosen.values()]
                found.append(_mixed(shares, [exact(children[move])[i] for move in chosen]))
        return tuple(found)

    def costs(self, value_of: Callable[[str], int], perfect: PolicyOf) -> list[Cost]:
        """Every position where the policy loses expected score against `perfect` play, with how
        likely it is reached: reach is carried forward level by level (a position reached by
        several paths adds them); `value_of` is a position's value for this seat with best play."""
        game = self.tree.game
        reach: list[dict[str, Fraction]] = [{} for _ in range(game.cells + 2)]  # by ply
        reach[0][game.empty_board] = ONE
        costs = []
        for ply in range(game.cells + 1):
            below = reach[ply + 1]
            for board, p in reach[ply].items():
                ended, mover, children = self.tree.node(board)
                if ended != "playing":
                    continue
                asked = self.policy(board) if mover == self.seat else perfect(board)
                if asked is None:  # not asked: what it loses there and beyond is not known
                    continue
                policy = asked
                if mover == self.seat:
                    values = {move: value_of(children[move]) for move in policy}
                    value = value_of(board)
                    lost = value - sum((q * values[move] for move, q in policy.items()), ZERO)
                    if lost > 0:
                        moves = tuple((move, q, values[move]) for move, q in policy.items())
                        costs.append(Cost(board, ply, value, p, lost, moves))
                for move, q in policy.items():
                    child = children[move]
                    below[child] = below.get(child, ZERO) + p * q
        return costs


def _lost(opponents: dict[str, PolicyOf | None]) -> Callable[[str], tuple[Exact, ...]]:
    """The worst case at a position not asked, unsearched: lost against every opponent."""
    return lambda _board: (LOST,) * len(opponents)


def _at_best(
    opponents: dict[str, PolicyOf | None], value_for: Callable[[str], int]
) -> Callable[[str], tuple[Exact, ...]]:
    """The best case at a position not asked, unsearched: its value with best play against the
    perfect player and a best response (neither lets the policy do better), won against the rest."""

    def bound(board: str) -> tuple[Exact, ...]:
        kept = OUTCOME_OF_VALUE[value_for(board)]
        return tuple(kept if name in ("perfect", BEST_RESPONSE) else WON for name in opponents)

    return bound


def _seat_value(mover_value: Callable[[str], int], seat: Mark, board: str) -> int:
    """A position's value with best play (1, 0, -1) for `seat`."""
    return score_seen_by(mover_value(board), seat, side_to_move(board))


def _ask_ply_by_ply(ai: NamedAI, seat: Mark, tree: _Tree, policy: AskedPolicy) -> None:
    """Ask `policy` (the AI in `seat`) at every position its play reaches, a ply at a time, each
    ply's boards announced to the AI first (`ask_ahead`), so that an AI answering from another
    process works through them without waiting for each question; the walks then find its answers
    remembered. Stops where `policy` is asked no more (its budget spent)."""
    frontier = [tree.game.empty_board]
    while frontier:
        reached: dict[str, None] = {}
        asking = [board for board in frontier if tree.node(board)[:2] == ("playing", seat)]
        ask_ahead(ai.play, asking)
        for board in frontier:
            ended, mover, children = tree.node(board)
            if ended != "playing":
                continue
            if mover != seat:
                reached.update(dict.fromkeys(children.values()))
                continue
            answer = policy(board)
            if answer is None:
                return
            reached.update(dict.fromkeys(children[move] for move in answer))
        frontier = list(reached)


def measured_over_core(policies: Iterable[CorePolicy | None]) -> bool:
    """Whether AIs of these CorePolicies (the measured AI's first, then its opponents'; None: one
    the core does not play) are measured over the core, every position at once, none of them asked."""
    return all(_core_plays(policies))


def _core_plays(policies: Iterable[CorePolicy | None]) -> list[bool]:
    """For each AI (the measured one first, then its opponents), whether the measures over the core
    play it: any CorePolicy for the first, one without a table for an opponent (the kernels read
    the table of the measured AI alone)."""
    return [policy is not None and (index == 0 or policy.table is None) for index, policy in enumerate(policies)]


def refuse_unmeasurable(
    game: Game, policies: Iterable[tuple[str, CorePolicy | None]] = (), *, bounded: bool = False
) -> None:
    """InputError for a game too large to measure, or for an AI (named, with its CorePolicy) that
    a game larger than MEASURED_MAX_CELLS cannot measure: a policy the core plays is measured over
    the core, any other board by board, which such a game allows only `bounded` (a budget of
    boards or seconds: the figures are then bounds once it is spent)."""
    if game.cells > MEASURED_OVER_CORE_MAX_CELLS:
        raise InputError(
            game.name,
            f"a policy is measured on games of at most {MEASURED_OVER_CORE_MAX_CELLS} cells; "
            f"{game.name} has {game.cells}",
        )
    if game.cells <= MEASURED_MAX_CELLS or bounded:
        return
    named = list(policies)
    for (name, _), played in zip(named, _core_plays(policy for _, policy in named), strict=True):
        if not played:
            raise InputError(
                name,
                f"games over {MEASURED_MAX_CELLS} cells ({game.name} has {game.cells}) measure a policy over the "
                "ranked core, which plays the database's own AIs (perfect, perfect-shortest, their @P grades), "
                "ai2s and a symmetric policy file (the one measured, not an opponent); this AI answers board by "
                "board, which a game this large allows only within a budget (score's --max-boards N or "
                "--max-seconds S: bounds once it is spent)",
            )


def _asked(named: NamedAI) -> PolicyOf:
    """An AI's policy, each position asked once."""
    return _remembered(lambda board: policy_at(named.play, board))


def _remembered(policy_of: PolicyOf) -> PolicyOf:
    """The policy, each position's answer made once."""
    answers: dict[str, Policy] = {}

    def policy(board: str) -> Policy:
        found = answers.get(board)
        if found is None:
            found = answers[board] = policy_of(board)
        return found

    return policy


def exact_match(
    ai: NamedAI, opponent: NamedAI, game: Game, database: SolutionDatabase | None = None
) -> dict[Mark, Outcome]:
    """The outcome of `ai` against `opponent` from the empty board, as o and as x, exactly: what
    an endless match would tally. Two policies the core plays are measured over the `database`'s
    core (every game up to MEASURED_OVER_CORE_MAX_CELLS cells), any other pair position by
    position (games up to MEASURED_MAX_CELLS cells); InputError otherwise."""
    pair = (ai, opponent)
    refuse_unmeasurable(game, [(named.name, named.core_policy) for named in pair])
    if database is not None and measured_over_core(named.core_policy for named in pair):
        from ttt_db.checks.core_measures import match_over_core

        return match_over_core(ai, opponent, database)
    if game.cells > MEASURED_MAX_CELLS:
        raise InputError(game.name, f"two policies the core plays are measured over its database on {game.name}")
    mine, theirs = _asked(ai), _asked(opponent)
    found = {}
    tree = _Tree(game)
    for seat in SEATS:
        walk = _Seat(seat, tree, mine, (theirs,))
        found[seat] = walk.outcomes([opponent.name], game.empty_board)[opponent.name]
    return found


def measure_policy(
    ai: NamedAI,
    database: SolutionDatabase,
    *,
    costliest: int = 10,
    against: Iterable[NamedAI] = (),
    progress: Callable[[int], None] | None = None,
    budget: CheckBudget | None = None,
    best_response: bool = True,
) -> PolicyMeasures:
    """Every measure of `ai` as a policy on the database's game, exact (games up to
    MEASURED_MAX_CELLS cells), and its outcomes `against` other AIs (by their names);
    `progress(asked)` hears each new position the AI is asked at (no total is known ahead: it
    depends on the AI's own play). AIMisbehaved when an answer at a position the play reaches is
    unusable. AIs the core plays (`CorePolicy`, every one of them and of `against`) are measured
    over the core instead (`measure_over_core`), on every game up to MEASURED_OVER_CORE_MAX_CELLS
    cells; any other AI on a game over MEASURED_MAX_CELLS cells only within a budget of boards or
    seconds (InputError without one), a position it is not asked at then taken at its bounds
    rather than searched below.

    A `budget` bounds the positions asked (`max_boards`) and the time: once it is spent the AI is
    asked no more, and the measures are what it is sure of, each position not asked played as badly
    as it could be played (against the same opponent), with `best_case` the same played as well as
    it could be: its true outcomes lie between the two, and NashConv between `nash_conv_bounds`;
    its costliest positions are those found among the positions asked.

    `best_response` False leaves out the best response, and with it NashConv and exploitability
    (`PolicyMeasures.best_response`): over the core, the passes it takes."""
    game = database.game
    against = tuple(against)
    bounded = budget is not None and budget.bounded
    refuse_unmeasurable(game, [(named.name, named.core_policy) for named in (ai, *against)], bounded=bounded)
    if measured_over_core(named.core_policy for named in (ai, *against)):
        from ttt_db.checks.core_measures import measure_over_core

        return measure_over_core(
            ai, database, costliest=costliest, against=against, progress=progress, best_response=best_response
        )
    asked: set[str] = set()
    uniform_at: set[str] = set()  # boards where its answer was several moves, each taken as equally likely

    def answered(board: str) -> Policy:
        found = answer_at(ai.play, board)
        if not isinstance(found, dict) and len(found) > 1:
            uniform_at.add(board)
        return as_policy(found)

    answer = _remembered(answered)
    stopped: list[str] = []
    if budget is not None:
        budget.start()

    def policy(board: str) -> Policy | None:
        if board not in asked:
            reason = budget.stop_reason() if budget is not None else None
            if reason is not None:
                stopped[:1] = [reason]
                return None
            asked.add(board)
            if budget is not None:
                budget.spend(1)
            if progress is not None:
                progress(len(asked))
        return answer(board)

    values: dict[str, int] = {}

    def mover_value(board: str) -> int:
        found = values.get(board)
        if found is None:
            found = values[board] = value_score(database.core.value_of(board)[0])
        return found

    best: dict[str, tuple[int, ...]] = {}

    def best_moves(board: str) -> tuple[int, ...]:
        found = best.get(board)
        if found is None:
            found = best[board] = database.best_moves_of(board)
        return found

    perfect = _remembered(lambda board: as_policy(best_moves(board)))
    uniform = _remembered(lambda board: as_policy(legal_moves(board, game)))
    opponents: dict[str, PolicyOf | None] = {
        "perfect": perfect,
        **({BEST_RESPONSE: None} if best_response else {}),
        "random": uniform,
        **{named.name: _asked(named) for named in against},
    }

    seats = {}
    tree = _Tree(game)
    searched = game.cells <= MEASURED_MAX_CELLS  # a larger game's whole tree below a position not asked is too much
    if answers_ahead(ai.play):
        for seat in SEATS:
            _ask_ply_by_ply(ai, seat, tree, policy)
    for seat in SEATS:
        value_for = partial(_seat_value, mover_value, seat)
        walk = _Seat(seat, tree, policy, tuple(opponents.values()), bound=None if searched else _lost(opponents))
        outcomes = walk.outcomes(opponents, game.empty_board)
        costs = walk.costs(value_for, perfect)
        by_depth: dict[int, Probability] = {}
        for cost in costs:
            by_depth[cost.ply] = by_depth.get(cost.ply, ZERO) + cost.share
        costs.sort(key=lambda cost: (-cost.share, cost.ply, cost.board))
        seats[seat] = SeatMeasures(seat, value_for(game.empty_board), outcomes, by_depth, costs[:costliest])
    if not stopped:
        return PolicyMeasures(ai.name, game, seats, len(asked), uniform_answers=len(uniform_at))
    best_case: dict[Mark, dict[str, Outcome]] = {}
    for seat in SEATS:
        value_for = partial(_seat_value, mover_value, seat)
        bound = None if searched else _at_best(opponents, value_for)
        walker = _Seat(seat, tree, policy, tuple(opponents.values()), best_case=True, bound=bound)
        best_case[seat] = walker.outcomes(opponents, game.empty_board)
    return PolicyMeasures(ai.name, game, seats, len(asked), stopped[0], best_case, uniform_answers=len(uniform_at))
