"""How good a policy is, exactly: its outcome probabilities from the empty board against the
perfect player (uniform among the database's best moves), a best response (the worst case) and
uniform random play, in either seat; NashConv and exploitability in OpenSpiel's units (self-play
policy, both seats); and where it loses its points against perfect play.

Every figure is an exact fraction, computed over positions (not histories): a position's outcome
distribution is the same however it was reached, so each is computed once. The policy is asked
only at the positions its own play reaches, with every reply of the opponent. An AI that answers
a collection of moves plays each with the same probability; one that answers probabilities
(`ttt_db.ais.calling.answer_at`) plays them as given.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from html import escape
from math import gcd, lcm
from typing import Any, Final

from ttt_db.ais.calling import Policy, as_policy, policy_at
from ttt_db.ais.protocol import NamedAI
from ttt_db.checks.budget import CheckBudget
from ttt_db.errors import InputError
from ttt_db.game.definition import Game
from ttt_db.game.rules import Mark, legal_moves, play, score_seen_by, side_to_move, status, value_score
from ttt_db.store.database import SolutionDatabase

MEASURED_MAX_CELLS: Final = 12
"""The largest game measured position by position (in Python, exact): every position of a larger
game is too many for it."""

OPPONENTS: Final = ("perfect", "best_response", "random")
"""The opponents every policy is measured against; `against` adds AIs by name."""
OPPONENT_NAMES: Final = {"perfect": "perfect play", "best_response": "a best response", "random": "uniform random"}
OUTCOME_WORDS: Final = {1: "wins", 0: "draws", -1: "loses"}
"""What a move's value (for its mover) is called in the measures' texts: the CLI's and the page's."""


def opponent_label(name: str) -> str:
    """An opponent as the texts name it: OPPONENTS in words, an `--against` AI by its name."""
    return OPPONENT_NAMES.get(name, name)


BEST_RESPONSE: Final = "best_response"
SEATS: Final[tuple[Mark, Mark]] = ("o", "x")

ZERO: Final = Fraction(0)
ONE: Final = Fraction(1)


@dataclass(frozen=True, slots=True)
class Outcome:
    """Win, draw and loss probabilities, for the policy's seat."""

    win: Fraction
    draw: Fraction
    loss: Fraction

    @property
    def score(self) -> Fraction:
        """The expected score, +1 a win and -1 a loss (OpenSpiel's utility)."""
        return self.win - self.loss

    def to_document(self) -> dict[str, Any]:
        return {
            "win": float(self.win),
            "draw": float(self.draw),
            "loss": float(self.loss),
            "score": float(self.score),
            "exact": {"win": str(self.win), "draw": str(self.draw), "loss": str(self.loss)},
        }


@dataclass(frozen=True, slots=True)
class Cost:
    """A position where the policy gives up expected score against perfect play: how likely it is
    reached, what the policy loses there (the position's value less its moves' expected value,
    for the policy's seat), and each move it plays with its probability and value."""

    board: str
    ply: int
    value: int  # the position's value for its mover (the policy) with best play: 1, 0, -1
    reach: Fraction
    lost: Fraction
    moves: tuple[tuple[int, Fraction, int], ...]  # (move, probability, value of the move for the mover: 1, 0, -1)

    @property
    def share(self) -> Fraction:
        """The expected score this position costs the policy from the start: reach x lost."""
        return self.reach * self.lost

    def to_document(self) -> dict[str, Any]:
        return {
            "board": self.board,
            "ply": self.ply,
            "value": self.value,
            "reach": float(self.reach),
            "lost": float(self.lost),
            "share": float(self.share),
            "moves": [
                {"move": move, "probability": float(p), "score": score, "outcome": OUTCOME_WORDS[score]}
                for move, p, score in self.moves
            ],
        }


@dataclass(frozen=True)
class SeatMeasures:
    """The policy in one seat: its outcomes against each opponent, the value of the start with
    best play (for it), and its points lost against perfect play, by depth and by position."""

    seat: Mark
    value: int  # the start's value for this seat with best play: 1, 0 or -1
    against: dict[str, Outcome]  # by opponent: OPPONENTS, then the AIs asked for by name
    lost_by_depth: dict[int, Fraction]
    costliest: list[Cost]

    @property
    def lost(self) -> Fraction:
        """Expected score lost against perfect play: the start's value less the score reached."""
        return self.value - self.against["perfect"].score

    def to_document(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "value": self.value,
            "against": {
                name: outcome.to_document() | {"label": opponent_label(name)} for name, outcome in self.against.items()
            },
            "lost": float(self.lost),
            "lost_by_depth": {str(depth): float(lost) for depth, lost in sorted(self.lost_by_depth.items())},
            "costliest": [cost.to_document() for cost in self.costliest],
        }


@dataclass(frozen=True)
class PolicyMeasures:
    """Every measure of one policy on one game (`measure_policy`)."""

    ai: str
    game: Game
    seats: dict[Mark, SeatMeasures]
    asked: int  # positions the policy was asked at
    stopped: str | None = None  # why it was asked no more (a CheckBudget's stop reason); None: exact
    best_case: dict[Mark, dict[str, Outcome]] | None = None  # stopped: the unasked positions played their best

    @property
    def nash_conv(self) -> Fraction:
        """OpenSpiel's NashConv of the policy playing both seats: what a best response gains over
        the policy's own play, summed over the two seats (0 for a perfect player). Stopped early,
        the most it can be (`nash_conv_bounds`)."""
        return -sum((seat.against[BEST_RESPONSE].score for seat in self.seats.values()), ZERO)

    @property
    def exploitability(self) -> Fraction:
        """OpenSpiel's exploitability: NashConv over the two players."""
        return self.nash_conv / 2

    @property
    def nash_conv_bounds(self) -> tuple[Fraction, Fraction]:
        """The least and the most NashConv can be: equal where every position was asked."""
        if self.best_case is None:
            return self.nash_conv, self.nash_conv
        return -sum((seat[BEST_RESPONSE].score for seat in self.best_case.values()), ZERO), self.nash_conv

    def to_document(self) -> dict[str, Any]:
        """`ttt-db score --json` (docs/json.md)."""
        document: dict[str, Any] = {
            "ai": self.ai,
            "game": self.game.name,
            "asked": self.asked,
            "stopped": self.stopped,
            "seats": {seat: measures.to_document() for seat, measures in self.seats.items()},
        }
        if self.best_case is None:
            return document | {
                "nash_conv": float(self.nash_conv),
                "exploitability": float(self.exploitability),
                "exact": {"nash_conv": str(self.nash_conv), "exploitability": str(self.exploitability)},
            }
        least, most = self.nash_conv_bounds
        return document | {
            "best_case": {
                seat: {name: outcome.to_document() for name, outcome in outcomes.items()}
                for seat, outcomes in self.best_case.items()
            },
            "nash_conv": None,
            "exploitability": None,
            "nash_conv_bounds": [float(least), float(most)],
            "exploitability_bounds": [float(least / 2), float(most / 2)],
            "exact": {"nash_conv_bounds": [str(least), str(most)]},
        }

    def _repr_html_(self) -> str:
        """The measures in a notebook: each seat's outcomes against each opponent, and the
        exploitability."""
        rows = []
        for seat in self.seats.values():
            for name, outcome in seat.against.items():
                against = escape(opponent_label(name))
                rows.append(
                    f"<tr><td>as {seat.seat}</td><td>{against}</td><td>{float(outcome.win):.1%}</td>"
                    f"<td>{float(outcome.draw):.1%}</td><td>{float(outcome.loss):.1%}</td>"
                    f"<td>{float(outcome.score):+.4f}</td></tr>"
                )
        least, most = self.nash_conv_bounds
        figure = (
            f"exploitability {float(most / 2):.6g} (NashConv {float(most):.6g})"
            if least == most
            else f"stopped after {self.asked:,} positions asked: exploitability between {float(least / 2):.6g} and "
            f"{float(most / 2):.6g}; each outcome below is what it is sure of"
        )
        return (
            f"<div><b>{escape(self.ai)}</b> on {escape(self.game.name)}: {figure}"
            "<table><tr><th>seat</th><th>against</th><th>win</th><th>draw</th><th>loss</th><th>score</th></tr>"
            f"{''.join(rows)}</table></div>"
        )


PolicyOf = Callable[[str], Policy]
AskedPolicy = Callable[[str], Policy | None]
"""The measured policy: None at a position it was not asked at (its budget spent)."""
Exact = tuple[int, int, int, int]
"""An outcome as integers: (win, draw, loss, denominator), kept in lowest terms; the walk adds and
scales these without a Fraction per operation."""


def _mixed(parts: list[tuple[Fraction, Exact]]) -> Exact:
    """The outcome of playing each part's outcome with its probability, exactly."""
    denominator = lcm(*(p.denominator * exact[3] for p, exact in parts))
    win = draw = loss = 0
    for p, (w, d, lo, den) in parts:
        scale = p.numerator * (denominator // (p.denominator * den))
        win += w * scale
        draw += d * scale
        loss += lo * scale
    common = gcd(gcd(win, draw), gcd(loss, denominator))
    return (win // common, draw // common, loss // common, denominator // common)


@dataclass
class _Seat:
    """One seat's walk: the policy's answers and the positions' values, each looked up once; an
    opponent is a policy, or None for the best response."""

    seat: Mark
    game: Game
    policy: AskedPolicy
    best_case: bool = False  # at a position not asked, the policy plays its best (else its worst)
    outcomes: dict[tuple[str, str], Exact] = field(default_factory=dict)

    def outcome(self, name: str, opponent: PolicyOf | None, board: str) -> Outcome:
        """The outcome from `board` of the policy in its seat against `opponent` (named `name`)."""
        win, draw, loss, denominator = self._exact(name, opponent, board)
        return Outcome(Fraction(win, denominator), Fraction(draw, denominator), Fraction(loss, denominator))

    def _exact(self, name: str, opponent: PolicyOf | None, board: str) -> Exact:
        key = (name, board)
        found = self.outcomes.get(key)
        if found is None:
            found = self.outcomes[key] = self._outcome(name, opponent, board)
        return found

    def _outcome(self, name: str, opponent: PolicyOf | None, board: str) -> Exact:
        ended = status(board, self.game)
        if ended != "playing":
            return (0, 1, 0, 1) if ended == "draw" else (1, 0, 0, 1) if ended == self.seat else (0, 0, 1, 1)
        mover = side_to_move(board)
        if mover == self.seat:
            asked = self.policy(board)
            if asked is None:  # not asked: the best or the worst it could do from here
                return self._extreme(name, opponent, board, mover, highest=self.best_case)
            chosen = asked
        elif opponent is None:
            return self._extreme(name, opponent, board, mover, highest=False)
        else:
            chosen = opponent(board)
        return _mixed(
            [
                (probability, self._exact(name, opponent, play(board, move, mover)))
                for move, probability in chosen.items()
            ]
        )

    def _extreme(self, name: str, opponent: PolicyOf | None, board: str, mover: Mark, *, highest: bool) -> Exact:
        """The child with the highest (else the lowest) score for the seat, a win's share breaking
        a tie (the lowest: the most losses): a best response, or a position the policy was not
        asked at. Scores are compared exactly, as integers over a common denominator."""
        children = [self._exact(name, opponent, play(board, m, mover)) for m in legal_moves(board, self.game)]
        common = lcm(*(exact[3] for exact in children))

        def key(exact: Exact) -> tuple[int, int]:
            scale = common // exact[3]
            score = (exact[0] - exact[2]) * scale
            return (score, exact[0] * scale) if highest else (score, -exact[2] * scale)

        return max(children, key=key) if highest else min(children, key=key)

    def costs(self, value_of: Callable[[str], int], perfect: PolicyOf) -> list[Cost]:
        """Every position where the policy loses expected score against `perfect` play, with how
        likely it is reached: reach is carried forward level by level (a position reached by
        several paths adds them); `value_of` is a position's value for this seat with best play."""
        reach: list[dict[str, Fraction]] = [{} for _ in range(self.game.cells + 2)]  # by ply
        reach[0][self.game.empty_board] = ONE
        costs = []
        for ply in range(self.game.cells + 1):
            below = reach[ply + 1]
            for board, p in reach[ply].items():
                if status(board, self.game) != "playing":
                    continue
                mover = side_to_move(board)
                asked = self.policy(board) if mover == self.seat else perfect(board)
                if asked is None:  # not asked: what it loses there and beyond is not known
                    continue
                policy = asked
                if mover == self.seat:
                    values = {move: value_of(play(board, move, mover)) for move in policy}
                    value = value_of(board)
                    lost = value - sum((q * values[move] for move, q in policy.items()), ZERO)
                    if lost > 0:
                        moves = tuple((move, q, values[move]) for move, q in policy.items())
                        costs.append(Cost(board, ply, value, p, lost, moves))
                for move, q in policy.items():
                    child = play(board, move, mover)
                    below[child] = below.get(child, ZERO) + p * q
        return costs


def refuse_unmeasurable(game: Game) -> None:
    """InputError for a game too large to measure position by position."""
    if game.cells > MEASURED_MAX_CELLS:
        raise InputError(
            game.name,
            f"a policy is measured position by position on games of at most {MEASURED_MAX_CELLS} cells; "
            f"{game.name} has {game.cells}",
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


def exact_match(ai: NamedAI, opponent: NamedAI, game: Game) -> dict[Mark, Outcome]:
    """The outcome of `ai` against `opponent` from the empty board, as o and as x, exactly: what
    an endless match would tally (games up to MEASURED_MAX_CELLS cells)."""
    refuse_unmeasurable(game)
    mine, theirs = _asked(ai), _asked(opponent)
    found = {}
    for seat in SEATS:
        walk = _Seat(seat, game, mine)
        found[seat] = walk.outcome(opponent.name, theirs, game.empty_board)
    return found


def measure_policy(
    ai: NamedAI,
    database: SolutionDatabase,
    *,
    costliest: int = 10,
    against: Iterable[NamedAI] = (),
    progress: Callable[[int], None] | None = None,
    budget: CheckBudget | None = None,
) -> PolicyMeasures:
    """Every measure of `ai` as a policy on the database's game, exact (games up to
    MEASURED_MAX_CELLS cells), and its outcomes `against` other AIs (by their names);
    `progress(asked)` hears each new position the AI is asked at (no total is known ahead: it
    depends on the AI's own play). AIMisbehaved when an answer at a position the play reaches is
    unusable.

    A `budget` bounds the positions asked (`max_boards`) and the time: once it is spent the AI is
    asked no more, and the measures are what it is sure of, each position not asked played as badly
    as it could be played (against the same opponent), with `best_case` the same played as well as
    it could be: its true outcomes lie between the two, and NashConv between `nash_conv_bounds`;
    its costliest positions are those found among the positions asked."""
    game = database.game
    refuse_unmeasurable(game)
    asked: set[str] = set()
    answer = _asked(ai)
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
        BEST_RESPONSE: None,
        "random": uniform,
        **{named.name: _asked(named) for named in against},
    }

    seats = {}
    for seat in SEATS:

        def value_for(board: str, seat: Mark = seat) -> int:
            return score_seen_by(mover_value(board), seat, side_to_move(board))

        walk = _Seat(seat, game, policy)
        outcomes = {name: walk.outcome(name, opponent, game.empty_board) for name, opponent in opponents.items()}
        costs = walk.costs(value_for, perfect)
        by_depth: dict[int, Fraction] = {}
        for cost in costs:
            by_depth[cost.ply] = by_depth.get(cost.ply, ZERO) + cost.share
        costs.sort(key=lambda cost: (-cost.share, cost.ply, cost.board))
        seats[seat] = SeatMeasures(seat, value_for(game.empty_board), outcomes, by_depth, costs[:costliest])
    if not stopped:
        return PolicyMeasures(ai.name, game, seats, len(asked))
    best_case: dict[Mark, dict[str, Outcome]] = {}
    for seat in SEATS:
        walker = _Seat(seat, game, policy, best_case=True)  # its walk remembers each (opponent, position)
        start = game.empty_board
        best_case[seat] = {name: walker.outcome(name, opponent, start) for name, opponent in opponents.items()}
    return PolicyMeasures(ai.name, game, seats, len(asked), stopped[0], best_case)
