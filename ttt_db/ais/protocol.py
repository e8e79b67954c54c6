"""The AI protocol: an AI is any callable from a board of the game it plays (R*C characters in
reading order, `o` moved first) to the collection of moves it might play, and `NamedAI` is one with
what a check, a match and the page need to know about it."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ttt_db.game.rules import EMPTY
from ttt_db.search.engine import SearchSpec, full_tree_nodes

if TYPE_CHECKING:
    from ttt_db.store.database import SolutionDatabase

AI = Callable[[str], Collection[int]]
DatabaseProvider = Callable[[], "SolutionDatabase"]


@dataclass(frozen=True, slots=True)
class NamedAI:
    name: str
    play: AI
    symmetric: bool | None  # treats symmetric boards alike; None when unknown (user AIs)
    summary: str
    deterministic: bool = True  # the same board always gets the same answer
    core_answer: str | None = None  # "best" or "fastest": answers the database's own moves (the perfect AIs)
    search: SearchSpec | None = None  # the search of this name it runs for every answer (search AIs but iddfs)

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
        empty = board.count(EMPTY)
        return full_tree_nodes(empty, empty if self.search.depth is None else self.search.depth + 1)
