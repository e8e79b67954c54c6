"""What a policy's measures are (`ttt_db.checks.measures.measure_policy`): its outcomes against
each opponent (`Outcome`), the positions where it loses its points (`Cost`), per seat
(`SeatMeasures`) and in all (`PolicyMeasures`, with NashConv and exploitability, its document and
its notebook display); exact fractions where measured position by position or over a small
game's core, float64 over a larger core (`Probability`)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from html import escape
from typing import Any, Final

from ttt_db.game.definition import Game
from ttt_db.game.rules import Mark

MEASURED_MAX_CELLS: Final = 12
"""The largest game measured position by position (in Python, exact): every position of a larger
game is too many for it, which is measured over the core (`ttt_db.checks.core_measures`)."""
MEASURED_OVER_CORE_MAX_CELLS: Final = 20
"""The largest game measured over the core (every level's codes are kept in memory)."""

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
Probability = Fraction | float
"""Exact (a fraction) where measured position by position, float64 where measured over the core
(`ttt_db.checks.core_measures`)."""


def _exact_text(value: Probability) -> str | None:
    """A figure as its exact fraction's text (`1/3`), or None for a float."""
    return str(value) if isinstance(value, Fraction) else None


@dataclass(frozen=True, slots=True)
class Outcome:
    """Win, draw and loss probabilities, for the policy's seat."""

    win: Probability
    draw: Probability
    loss: Probability

    @property
    def score(self) -> Probability:
        """The expected score, +1 a win and -1 a loss (OpenSpiel's utility)."""
        return self.win - self.loss

    def to_document(self) -> dict[str, Any]:
        return {
            "win": float(self.win),
            "draw": float(self.draw),
            "loss": float(self.loss),
            "score": float(self.score),
            "exact": None
            if _exact_text(self.win) is None
            else {"win": str(self.win), "draw": str(self.draw), "loss": str(self.loss)},
        }


@dataclass(frozen=True, slots=True)
class Cost:
    """A position where the policy gives up expected score against perfect play: how likely it is
    reached, what the policy loses there (the position's value less its moves' expected value,
    for the policy's seat), and each move it plays with its probability and value."""

    board: str
    ply: int
    value: int  # the position's value for its mover (the policy) with best play: 1, 0, -1
    reach: Probability
    lost: Probability
    moves: tuple[tuple[int, Fraction, int], ...]  # (move, probability, value of the move for the mover: 1, 0, -1)

    @property
    def share(self) -> Probability:
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
    lost_by_depth: dict[int, Probability]
    costliest: list[Cost]

    @property
    def lost(self) -> Probability:
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
    asked: int  # positions the policy was asked at; over the core, every position measured
    stopped: str | None = None  # why it was asked no more (a CheckBudget's stop reason); None: exact
    best_case: dict[Mark, dict[str, Outcome]] | None = None  # stopped: the unasked positions played their best
    over_core: bool = False  # measured over the ranked core (`measure_over_core`), every position at once
    uniform_answers: int = 0  # positions where it answered several moves, taken as each equally likely

    @property
    def exact(self) -> bool:
        """Whether the figures are exact fractions (measured position by position), not floats
        (measured over the core)."""
        return isinstance(self.seats[SEATS[0]].against["perfect"].win, Fraction)

    @property
    def best_response(self) -> bool:
        """Whether the policy was measured against a best response, and so has a NashConv (not
        where the best response was left out: `measure_policy(best_response=False)`)."""
        return BEST_RESPONSE in self.seats[SEATS[0]].against

    @property
    def nash_conv(self) -> Probability:
        """OpenSpiel's NashConv of the policy playing both seats: what a best response gains over
        the policy's own play, summed over the two seats (0 for a perfect player). Stopped early,
        the most it can be (`nash_conv_bounds`). ValueError where no best response was measured
        (`best_response`)."""
        if not self.best_response:
            raise ValueError(f"{self.ai} was measured without a best response: it has no NashConv")
        return ZERO - sum((seat.against[BEST_RESPONSE].score for seat in self.seats.values()), ZERO)

    @property
    def exploitability(self) -> Probability:
        """OpenSpiel's exploitability: NashConv over the two players (ValueError as `nash_conv`)."""
        return self.nash_conv / 2

    @property
    def nash_conv_bounds(self) -> tuple[Probability, Probability]:
        """The least and the most NashConv can be: equal where every position was asked
        (ValueError as `nash_conv`)."""
        if self.best_case is None:
            return self.nash_conv, self.nash_conv
        return -sum((seat[BEST_RESPONSE].score for seat in self.best_case.values()), ZERO), self.nash_conv

    def to_document(self) -> dict[str, Any]:
        """`ttt-db score --json` (docs/json.md)."""
        document: dict[str, Any] = {
            "ai": self.ai,
            "game": self.game.name,
            "asked": self.asked,
            "over_core": self.over_core,
            "uniform_answers": self.uniform_answers,
            "arithmetic": "exact" if self.exact else "float64",
            "stopped": self.stopped,
            "seats": {seat: measures.to_document() for seat, measures in self.seats.items()},
        }
        if self.best_case is not None:
            document["best_case"] = {
                seat: {name: outcome.to_document() for name, outcome in outcomes.items()}
                for seat, outcomes in self.best_case.items()
            }
        if not self.best_response:
            bounds = {} if self.best_case is None else {"nash_conv_bounds": None, "exploitability_bounds": None}
            return document | {"nash_conv": None, "exploitability": None} | bounds | {"exact": None}
        if self.best_case is None:
            return document | {
                "nash_conv": float(self.nash_conv),
                "exploitability": float(self.exploitability),
                "exact": {"nash_conv": str(self.nash_conv), "exploitability": str(self.exploitability)}
                if self.exact
                else None,
            }
        least, most = self.nash_conv_bounds
        return document | {
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
        if not self.best_response:
            figure = "measured without a best response (no exploitability)"
        else:
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
