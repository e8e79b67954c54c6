"""The AI protocol: an AI is any callable from a board of the game it plays (R*C characters in
reading order, `o` moved first) to the collection of moves it might play, and `NamedAI` is one with
what a check, a match and the page need to know about it."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Literal

from ttt_db.game.rules import EMPTY

if TYPE_CHECKING:
    from ttt_db.search.engine import SearchSpec
    from ttt_db.store.database import SolutionDatabase

AI = Callable[[str], Collection[int]]
DatabaseProvider = Callable[[], "SolutionDatabase"]


@dataclass(frozen=True, slots=True)
class DatabaseAI:
    """The database's perfect player as an AI: its best moves at each board
    (`SolutionDatabase.best_moves_of`), the fastest of them with `shortest`."""

    database: SolutionDatabase
    shortest: bool

    def __call__(self, board: str) -> tuple[int, ...]:
        return self.database.best_moves_of(board, shortest=self.shortest)

    def known_answers(self) -> Mapping[str, tuple[int, ...]] | None:
        """Its answer at every board in play, in one mapping, where the database holds them so (a
        small game's table, every image made at once): a check may read them instead of asking
        board by board, as they are moves already checked and sorted. None otherwise."""
        return self.database.every_best_moves(shortest=self.shortest)


@dataclass(frozen=True, slots=True)
class CorePolicy:
    """A policy the ranked core can play by itself: with probability `skill` one of its `moves`
    (the moves keeping the best value, or also the fastest), uniformly, else any legal move,
    uniformly. The database's perfect players are skill 1, `perfect@P` skill P, uniform random
    play skill 0. A `table` (o-first cells -> move probabilities, each board's images listed alike)
    is played where it lists a board instead (a tabular policy, `ttt_db.ais.tabular`)."""

    moves: Literal["best", "fastest"]
    skill: Fraction
    table: Mapping[str, Mapping[int, Fraction]] | None = None

    def odds(self, legal: int, chosen: int) -> tuple[Fraction, Fraction]:
        """(the probability of any move, of one of its `moves`) at a board with `legal` moves of
        which `chosen` are its moves."""
        return graded_odds(self.skill, legal, chosen)


def graded_odds(skill: Fraction, legal: int, chosen: int) -> tuple[Fraction, Fraction]:
    """A move's probability, and a chosen move's, among `legal` moves of which `chosen` are
    chosen, when one of those is played with probability `skill`, else any move, uniformly."""
    rest = (1 - skill) / legal
    return rest, rest + skill / chosen


@dataclass(frozen=True, slots=True)
class NamedAI:
    name: str
    play: AI
    symmetric: bool | None  # treats symmetric boards alike; None when unknown (user AIs)
    summary: str
    deterministic: bool = True  # the same board always gets the same answer
    core_answer: str | None = None  # "best" or "fastest": answers the database's own moves (the perfect AIs)
    search: SearchSpec | None = None  # the search of this name it runs for every answer (search AIs but iddfs)
    core_policy: CorePolicy | None = None  # what it plays, where the core can play it too (measured in arrays)

    @property
    def one_answer_per_orbit(self) -> bool:
        """Its answer at one board of a symmetry class speaks for every image: a check may ask
        it once per class."""
        return self.symmetric is True and self.deterministic

    def most_nodes(self, board: str) -> int | None:
        """The most nodes one answer at `board` may search (the full tree as deep as its search
        looks below a move), or None for an AI that runs no search of a fixed depth."""
        if self.search is None:
            return None
        from ttt_db.search.engine import full_tree_nodes  # loaded with the search it counts

        empty = board.count(EMPTY)
        return full_tree_nodes(empty, empty if self.search.depth is None else self.search.depth + 1)
