"""PettingZoo (`pip install 'ttt-db[pettingzoo]'`): a `tictactoe_v3` agent as a ttt-db AI, and
ttt-db's perfect player as a PettingZoo policy.

`tictactoe_v3` numbers its actions down the columns (action `3 * column + row`), where ttt-db
reads along the rows; its `player_1` moves first and is ttt-db's `o`. An observation holds two
3x3 planes indexed [column][row]: the marks of the player to move, then the opponent's.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Iterable
from typing import TYPE_CHECKING, Any

from ttt_db.ais.candidates import empirical
from ttt_db.errors import MissingExtraError
from ttt_db.game.rules import moves_reaching

if TYPE_CHECKING:
    from ttt_db.store.database import SolutionDatabase

Policy = Callable[[dict[str, Any], str], int]
"""PettingZoo's usual agent: (observation with its `action_mask`, agent name) -> action."""


def action_of_cell(cell: int) -> int:
    """The tictactoe_v3 action of a ttt-db cell (reading order)."""
    row, column = divmod(cell, 3)
    return 3 * column + row


def cell_of_action(action: int) -> int:
    """The ttt-db cell (reading order) of a tictactoe_v3 action."""
    column, row = divmod(action, 3)
    return 3 * row + column


def _environment() -> Any:
    try:
        from pettingzoo import make
    except ImportError:
        raise MissingExtraError("PettingZoo (pettingzoo>=1.27)", "pettingzoo") from None
    return make("aec", "classic/tictactoe-v3")


def environment_at(board: str) -> Any:
    """A tictactoe_v3 environment whose board is `board` (o first), o's and x's marks placed
    alternately, with the player to move current."""
    environment = _environment()
    environment.reset()
    for move in moves_reaching(board):
        environment.step(action_of_cell(move))
    return environment


def board_of_observation(observation: dict[str, Any] | Any) -> str:
    """The board (o first) a tictactoe_v3 observation shows."""
    planes = observation["observation"] if isinstance(observation, dict) else observation
    mine = [planes[cell % 3][cell // 3][0] for cell in range(9)]
    theirs = [planes[cell % 3][cell // 3][1] for cell in range(9)]
    me = "o" if sum(mine) == sum(theirs) else "x"  # the first player moves on equal counts
    them = "x" if me == "o" else "o"
    return "".join(me if mine[cell] else them if theirs[cell] else "." for cell in range(9))


def from_policy(policy: Any, *, seeds: Iterable[int] | None = None) -> Callable[[str], Collection[int]]:
    """A tictactoe_v3 agent as an AI: `policy(observation, agent) -> action`, asked at each board
    as the environment shows it. A policy that samples: give a factory `seed -> policy` and
    `seeds`, and the AI answers the moves the seeded policies play, each with its share of them."""
    chosen = None if seeds is None else tuple(seeds)

    def play(board: str) -> Collection[int]:
        environment = environment_at(board)
        observation, agent = environment.observe(environment.agent_selection), environment.agent_selection
        if chosen is None:
            return [cell_of_action(int(policy(observation, agent)))]
        return empirical(cell_of_action(int(policy(seed)(observation, agent))) for seed in chosen)

    return play


def perfect_policy(database: SolutionDatabase, *, shortest: bool = False, seed: int | None = None) -> Policy:
    """ttt-db's perfect player as a tictactoe_v3 policy: one of the database's best moves, drawn
    uniformly with `seed`."""
    rng = random.Random(seed)

    def policy(observation: dict[str, Any], agent: str) -> int:
        best = database.best_moves_of(board_of_observation(observation), shortest=shortest)
        return action_of_cell(rng.choice(best))

    return policy
