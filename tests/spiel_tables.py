"""A trained learner's policy as a table, for the tests and the benchmark: OpenSpiel's tabular
Q-learner made a softmax policy, as OpenSpiel's TabularPolicy and as a policy file's mapping."""

from __future__ import annotations

from ttt_db.game.definition import Game

TEMPERATURE = 0.1
"""The softmax's temperature: Q-values lie in [-1, 1], and a cooler softmax is further from random play."""


def softmax_table(game: Game, episodes: int, seed: int) -> tuple[object, dict[str, dict[str, float]]]:
    """OpenSpiel's tabular Q-learner trained `episodes` self-play games on `game`, its Q-values made
    a softmax policy: OpenSpiel's TabularPolicy of it, and the same as a policy file's mapping (every
    state in play, by ttt-db's board)."""
    import numpy as np
    from open_spiel.python import policy as spiel_policy
    from open_spiel.python import rl_environment
    from open_spiel.python.algorithms import tabular_qlearner

    from ttt_db.ais.openspiel import board_of_state, spiel_game

    np.random.seed(seed)
    spiel = spiel_game(game)
    environment = rl_environment.Environment(spiel, observation_type=rl_environment.ObservationType.OBSERVATION)
    agents = [tabular_qlearner.QLearner(player_id=player, num_actions=game.cells) for player in range(2)]
    for _ in range(episodes):
        step = environment.reset()
        while not step.last():
            step = environment.step([agents[step.observations["current_player"]].step(step).action])
        for agent in agents:
            agent.step(step)
    tabular = spiel_policy.TabularPolicy(spiel)
    table: dict[str, dict[str, float]] = {}
    for index, state in enumerate(tabular.states):
        legal, player = state.legal_actions(), state.current_player()
        seen = str(state.observation_tensor(player))  # the learner's key: what its environment showed it
        q_values = agents[player]._q_values[seen]  # noqa: SLF001 - the learner's own table
        weights = np.exp(np.array([q_values[action] for action in legal]) / TEMPERATURE)
        odds = weights / weights.sum()
        tabular.action_probability_array[index] = 0
        tabular.action_probability_array[index, legal] = odds
        table[board_of_state(state, game)] = {str(action): float(p) for action, p in zip(legal, odds, strict=True)}
    return tabular, table
