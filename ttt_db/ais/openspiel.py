"""OpenSpiel (`pip install 'ttt-db[openspiel]'`): its bots, policies and RL agents as ttt-db AIs,
and ttt-db's perfect player as an OpenSpiel bot and policy.

OpenSpiel's `tic_tac_toe` (3x3k3) and `mnk` (any m,n,k game: m columns, n rows) number the
cells as ttt-db does, in reading order; its player 0 moves first and is ttt-db's `o`. An AI
made here takes a board and the game it plays (`play(board, game)`), so `ttt-db check
file.py:name --game G` tells it which one.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Iterable, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from ttt_db.ais.candidates import empirical
from ttt_db.errors import MissingExtraError
from ttt_db.game.definition import TICTACTOE, Game
from ttt_db.game.rules import mover_at, moves_reaching

if TYPE_CHECKING:
    from ttt_db.store.database import SolutionDatabase

GameAI = Callable[[str, Game], Collection[int]]
"""An AI with the second signature: (board, game) -> every move it might play."""


def _pyspiel() -> Any:
    try:
        import pyspiel
    except ImportError:
        raise MissingExtraError("OpenSpiel (open_spiel)", "openspiel") from None
    return pyspiel


@cache
def spiel_game(game: Game) -> Any:
    """OpenSpiel's game of `game`: `tic_tac_toe` for 3x3k3, else `mnk`."""
    pyspiel = _pyspiel()
    if game == TICTACTOE:
        return pyspiel.load_game("tic_tac_toe")
    return pyspiel.load_game("mnk", {"m": game.columns, "n": game.rows, "k": game.k})


def spiel_state(board: str, game: Game) -> Any:
    """An OpenSpiel state showing `board` (o first): o's and x's marks placed alternately."""
    state = spiel_game(game).new_initial_state()
    for move in moves_reaching(board):
        state.apply_action(move)
    return state


def board_of_state(state: Any, game: Game) -> str:
    """The board (o first) an OpenSpiel state shows, from its moves."""
    cells = list(game.empty_board)
    for ply, action in enumerate(state.history()):
        cells[action] = mover_at(ply)
    return "".join(cells)


def from_bot(bot: Any, *, seeds: Iterable[int] | None = None) -> GameAI:
    """An OpenSpiel bot (anything with `step(state) -> action`) as an AI. A bot that samples (MCTS)
    plays one move a call: give a factory `seed -> bot` and `seeds`, and the AI answers the moves
    the seeded bots play, each with the share of the seeds that play it (the check and the
    measures then speak for those seeds only)."""
    chosen = None if seeds is None else tuple(seeds)

    def play(board: str, game: Game = TICTACTOE) -> Collection[int]:
        state = spiel_state(board, game)
        if chosen is None:
            return [int(bot.step(state))]
        return empirical(int(bot(seed).step(state.clone())) for seed in chosen)

    return play


def from_policy(policy: Any) -> GameAI:
    """An OpenSpiel policy (`action_probabilities(state) -> {action: probability}`) as an AI: its
    probabilities as given (a check examines every action above 0)."""

    def play(board: str, game: Game = TICTACTOE) -> Collection[int]:
        probabilities = policy.action_probabilities(spiel_state(board, game))
        return {int(action): float(p) for action, p in sorted(probabilities.items()) if p > 0}

    return play


def from_agent(agents: Any | Sequence[Any]) -> GameAI:
    """OpenSpiel RL agents (`step(time_step, is_evaluation=True)`, a tabular Q-learner, DQN, ...) as
    an AI: the probabilities its evaluation step gives the legal actions (a greedy agent's ties).
    One agent, or a list of one per player (player 0 is o); an agent answers only
    for its own `player_id`'s boards, so a check of both sides needs both."""
    _pyspiel()  # MissingExtraError without OpenSpiel
    from open_spiel.python import rl_environment

    if isinstance(agents, Sequence):
        by_player = dict(enumerate(agents))
    else:  # its own player: OpenSpiel's agents keep it as `player_id` or `_player_id`
        by_player = {getattr(agents, "player_id", getattr(agents, "_player_id", 0)): agents}
    environments: dict[Game, Any] = {}

    def play(board: str, game: Game = TICTACTOE) -> Collection[int]:
        environment = environments.get(game)
        if environment is None:
            environment = environments[game] = rl_environment.Environment(spiel_game(game))
        state = spiel_state(board, game)
        agent = by_player.get(state.current_player())
        if agent is None:
            raise ValueError(f"no agent plays player {state.current_player()} ({board!r} has it to move)")
        environment.set_state(state)
        probabilities = agent.step(environment.get_time_step(), is_evaluation=True).probs
        return {action: float(probabilities[action]) for action in state.legal_actions() if probabilities[action] > 0}

    return play


def perfect_bot(database: SolutionDatabase, *, shortest: bool = False, seed: int | None = None) -> Any:
    """ttt-db's perfect player as an OpenSpiel bot: one of the database's best moves (the fastest
    win or slowest loss with `shortest`), drawn uniformly with `seed`."""
    pyspiel = _pyspiel()
    game = database.game
    rng = random.Random(seed)

    base: Any = pyspiel.Bot

    class PerfectBot(base):  # type: ignore[misc]
        def step(self, state: Any) -> int:
            return rng.choice(database.best_moves_of(board_of_state(state, game), shortest=shortest))

        def restart_at(self, state: Any) -> None:
            return None

    bot = PerfectBot()
    pyspiel.Bot.__init__(bot)
    return bot


def perfect_policy(database: SolutionDatabase, *, shortest: bool = False) -> Any:
    """ttt-db's perfect player as an OpenSpiel policy: every best move, equally likely."""
    _pyspiel()  # MissingExtraError without OpenSpiel
    from open_spiel.python import policy

    game = database.game

    base: Any = policy.Policy

    class PerfectPolicy(base):  # type: ignore[misc]
        def action_probabilities(self, state: Any, player_id: int | None = None) -> dict[int, float]:
            best = database.best_moves_of(board_of_state(state, game), shortest=shortest)
            return {int(action): 1 / len(best) for action in best}

    spiel = spiel_game(game)
    return PerfectPolicy(spiel, list(range(spiel.num_players())))
