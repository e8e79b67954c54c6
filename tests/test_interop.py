"""OpenSpiel's and PettingZoo's agents checked by ttt-db, and ttt-db's perfect player in theirs,
against the real packages (skipped, with the reason, where they are not installed; CI installs
them). The agents carry the faults real ones have: a tabular Q-learner that saw too few games,
a bot that plays the first legal action in its environment's own order."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
import reference
from test_decisive_mistake import expected_mistake

from ttt_db.ais.protocol import NamedAI
from ttt_db.checks.report import run_checks
from ttt_db.game.definition import TICTACTOE, Game
from ttt_db.store.database import SolutionDatabase

RULES = reference.TICTACTOE
PLAYING = [board for board in reference.reachable() if not RULES.finished(board)]


def _named(play) -> NamedAI:
    return NamedAI("adapted", play, None, "an adapted agent")


def _assert_mistakes_are_the_references(report) -> None:
    for side in (report.weak.o, report.weak.x):
        if side.solved is not False:
            continue
        mistake = report.mistakes[side.side]
        expected = expected_mistake(side.counterexample.moves, side.side, side.target)
        assert (mistake.ply, mistake.board, mistake.move, mistake.held) == (
            expected.ply,
            expected.board,
            expected.move,
            expected.held,
        )


# --- OpenSpiel -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def spiel():
    return pytest.importorskip("pyspiel", reason="OpenSpiel is not installed: pip install 'ttt-db[openspiel]'")


def test_openspiel_states_show_the_boards_they_are_made_for(spiel) -> None:
    from ttt_db.ais.openspiel import board_of_state, spiel_state

    for board in PLAYING[::5]:
        state = spiel_state(board, TICTACTOE)
        assert board_of_state(state, TICTACTOE) == board
        # OpenSpiel draws its player 0 as x: ttt-db's o
        assert str(state).replace("\n", "") == board.translate(str.maketrans("ox", "xo"))
    game = Game.parse("3x4k3")
    state = spiel_state("o..x.o......", game)
    assert state.get_game().get_type().short_name == "mnk"
    assert board_of_state(state, game) == "o..x.o......" and len(state.legal_actions()) == 9


def _train_q_learners(episodes: int, seed: int):
    import numpy as np
    from open_spiel.python import rl_environment
    from open_spiel.python.algorithms import tabular_qlearner

    np.random.seed(seed)  # the Q-learner explores with numpy's global generator
    environment = rl_environment.Environment("tic_tac_toe")
    agents = [tabular_qlearner.QLearner(player_id=player, num_actions=9) for player in range(2)]
    for _ in range(episodes):
        step = environment.reset()
        while not step.last():
            player = step.observations["current_player"]
            step = environment.step([agents[player].step(step).action])
        for agent in agents:
            agent.step(step)
    return agents


def test_a_q_learner_that_saw_too_few_games_is_not_solved_and_its_decisive_mistakes_are_named(
    spiel, db: SolutionDatabase
) -> None:
    from ttt_db.ais.openspiel import from_agent

    play = from_agent(_train_q_learners(2_000, seed=3))
    report = run_checks(_named(play), db)
    assert report.solved is False and report.weak.solved is False
    strong = reference.strong_check_of(play)
    assert (report.strong.correct, report.strong.total) == (strong.correct, strong.total)
    assert report.mistakes  # at least one side's counterexample, with the move that lost it
    _assert_mistakes_are_the_references(report)


def test_check_takes_openspiel_agents_by_name(spiel, run, tmp_path: Path, monkeypatch) -> None:
    bots = tmp_path / "spiel_bots.py"
    bots.write_text(
        textwrap.dedent(
            """
            import numpy as np
            import pyspiel
            from open_spiel.python import rl_environment
            from open_spiel.python.algorithms import tabular_qlearner


            def _trained():
                np.random.seed(3)
                environment = rl_environment.Environment("tic_tac_toe")
                agents = [tabular_qlearner.QLearner(player_id=p, num_actions=9) for p in range(2)]
                for _ in range(2000):
                    step = environment.reset()
                    while not step.last():
                        step = environment.step([agents[step.observations["current_player"]].step(step).action])
                    for agent in agents:
                        agent.step(step)
                return agents


            q_learners = _trained()


            class FirstAction(pyspiel.Bot):
                def __init__(self):
                    pyspiel.Bot.__init__(self)

                def step(self, state):
                    return state.legal_actions()[0]

                def restart_at(self, state):
                    pass


            first_action = FirstAction()
            """
        )
    )
    monkeypatch.chdir(tmp_path)
    checked = run("check", "spiel_bots.py:q_learners", "--json")
    assert checked.exit_code == 1, checked.output
    document = json.loads(checked.stdout)
    assert document["solved"] is False
    assert any(document["weak"][side]["mistake"] for side in ("o", "x"))
    first = run("check", "spiel_bots.py:first_action", "--strong", "--json")
    ai1s = reference.strong_check_of(lambda board: [board.index(".")])  # reading order: ai1s
    assert json.loads(first.stdout)["strong"]["correct"] == ai1s.correct


def test_ttt_dbs_perfect_player_is_a_perfect_openspiel_bot_and_policy(spiel, db: SolutionDatabase) -> None:
    import numpy as np
    from open_spiel.python.algorithms import evaluate_bots, mcts

    from ttt_db.ais.openspiel import from_bot, from_policy, perfect_bot, perfect_policy, spiel_game

    assert run_checks(_named(from_bot(perfect_bot(db, seed=1))), db, weak=False).solved is True  # a best move each call
    assert run_checks(_named(from_policy(perfect_policy(db))), db).solved is True
    game = spiel_game(TICTACTOE)
    rng = np.random.RandomState(5)
    for seat in (0, 1):
        for _ in range(10):
            opponent = mcts.MCTSBot(game, 2, 20, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
            bots = [opponent, opponent]
            bots[seat] = perfect_bot(db, seed=int(rng.randint(1000)))
            returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
            assert returns[seat] >= 0  # never loses


def test_a_seeded_mcts_bot_answers_every_move_its_seeds_play(spiel) -> None:
    import numpy as np
    from open_spiel.python.algorithms import mcts

    from ttt_db.ais.openspiel import from_bot, spiel_game

    game = spiel_game(TICTACTOE)

    def make(seed: int):
        rng = np.random.RandomState(seed)
        return mcts.MCTSBot(game, 2, 10, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)

    play = from_bot(make, seeds=range(6))
    board = "oo..x...."  # x must block at 2
    assert play(board) == play(board)  # seeded: the same answer each time
    singles = {from_bot(make(seed))(board)[0] for seed in range(6)}
    assert set(play(board)) == singles


def test_check_takes_a_bot_factory_by_name_and_refuses_a_bare_sampling_bot(
    spiel, run, tmp_path: Path, monkeypatch
) -> None:
    """A `make_bot(seed)` factory named directly is checked over its seeds (the check failed with a
    TypeError); a bare MCTSBot, one random stream, is refused with the factory to write (it was
    checked as one stream without a word)."""
    (tmp_path / "mcts_bots.py").write_text(
        textwrap.dedent(
            """
            import numpy as np
            import pyspiel
            from open_spiel.python.algorithms import mcts

            GAME = pyspiel.load_game("tic_tac_toe")


            def make_bot(seed):
                rng = np.random.RandomState(seed)
                return mcts.MCTSBot(GAME, 2, 8, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)


            bot = make_bot(0)
            """
        )
    )
    monkeypatch.chdir(tmp_path)
    checked = run("check", "mcts_bots.py:make_bot", "--strong", "--max-boards", "40", "--json")
    assert checked.exit_code in (1, 4), checked.output
    strong = json.loads(checked.stdout)["strong"]
    assert strong["checked"] == 40 and "error" not in strong["by_kind"]  # every board answered
    refused = run("check", "mcts_bots.py:bot", "--weak")
    assert refused.exit_code == 2
    assert "it is a MCTSBot, which samples its moves (its _random_state)" in refused.stderr
    # issue 59: the bot was found; "unknown AI" read as if the name were wrong
    assert "AI 'mcts_bots.py:bot' was found but cannot be asked for moves as it is" in refused.stderr
    assert "unknown AI" not in refused.stderr
    assert "def make_bot(seed): return MCTSBot(...), checked over seeds 0 to 15" in refused.stderr


def test_check_takes_a_pettingzoo_policy_by_name(zoo, run, tmp_path: Path, monkeypatch, db_3x4k3_path: Path) -> None:
    """`policy(observation, agent)`, PettingZoo's own shape, is adapted (it failed every board with
    a TypeError); on another game than tic-tac-toe it is refused as not playing it."""
    (tmp_path / "pz_agent.py").write_text(
        "def policy(observation, agent):\n"
        "    return int(next(a for a, free in enumerate(observation['action_mask']) if free))\n"
    )
    monkeypatch.chdir(tmp_path)
    checked = run("check", "pz_agent.py:policy", "--strong", "--json")
    assert checked.exit_code == 1, checked.output

    def down_the_columns(board: str) -> list[int]:
        return [next(cell for cell in (0, 3, 6, 1, 4, 7, 2, 5, 8) if board[cell] == ".")]

    strong = json.loads(checked.stdout)["strong"]
    assert strong["correct"] == reference.strong_check_of(down_the_columns).correct
    other = run("check", "pz_agent.py:policy", "--game", "3x4k3", "--db", str(db_3x4k3_path), "--strong")
    assert other.exit_code == 2
    assert "AI 'pz_agent.py:policy' does not play 3x4k3" in other.stderr and "tictactoe_v3" in other.stderr


# --- PettingZoo ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def zoo():
    pytest.importorskip("pygame", reason="PettingZoo's tictactoe_v3 needs pygame: pip install 'ttt-db[pettingzoo]'")
    return pytest.importorskip("pettingzoo", reason="PettingZoo is not installed: pip install 'ttt-db[pettingzoo]'")


def test_pettingzoo_environments_show_the_boards_they_are_made_for(zoo) -> None:
    from ttt_db.ais.pettingzoo import action_of_cell, board_of_observation, cell_of_action, environment_at

    assert [cell_of_action(action_of_cell(cell)) for cell in range(9)] == list(range(9))
    assert action_of_cell(1) == 3  # b1, the second cell of the top row, is PettingZoo's action 3
    for board in PLAYING[::5]:
        environment = environment_at(board)
        observation = environment.observe(environment.agent_selection)
        assert board_of_observation(observation) == board
        assert environment.agent_selection == ("player_1" if RULES.mover(board) == "o" else "player_2")
        empty = [cell for cell, char in enumerate(board) if char == "."]
        assert sorted(cell_of_action(a) for a, free in enumerate(observation["action_mask"]) if free) == empty


def _first_legal_action(observation, agent) -> int:
    """A bot of the tutorials' kind: the first legal action, in PettingZoo's column order."""
    return int(next(action for action, free in enumerate(observation["action_mask"]) if free))


def test_a_first_legal_action_agent_is_checked_with_its_decisive_mistake(zoo, db: SolutionDatabase) -> None:
    from ttt_db.ais.pettingzoo import from_policy

    play = from_policy(_first_legal_action)
    report = run_checks(_named(play), db)
    assert report.solved is False and report.weak.solved is False

    def down_the_columns(board: str) -> list[int]:
        return [next(cell for cell in (0, 3, 6, 1, 4, 7, 2, 5, 8) if board[cell] == ".")]

    assert report.strong.correct == reference.strong_check_of(down_the_columns).correct
    assert report.mistakes
    _assert_mistakes_are_the_references(report)


def test_ttt_dbs_perfect_player_never_loses_in_pettingzoo(zoo, db: SolutionDatabase) -> None:
    import random

    from pettingzoo import make

    from ttt_db.ais.pettingzoo import from_policy, perfect_policy

    assert run_checks(_named(from_policy(perfect_policy(db, seed=2))), db, weak=True, strong=False).solved is True
    rng = random.Random(4)
    for game in range(40):
        perfect_seat = ("player_1", "player_2")[game % 2]
        perfect = perfect_policy(db, seed=game)
        environment = make("aec", "classic/tictactoe-v3")
        environment.reset(seed=game)
        for agent in environment.agent_iter():
            observation, reward, terminated, truncated, _ = environment.last()
            if terminated or truncated:
                if agent == perfect_seat:
                    assert reward >= 0
                environment.step(None)
                continue
            legal = [action for action, free in enumerate(observation["action_mask"]) if free]
            environment.step(perfect(observation, agent) if agent == perfect_seat else rng.choice(legal))


def test_the_recipes_in_docs_interop_run(spiel, zoo, db_path: Path, monkeypatch, capsys) -> None:
    import re

    monkeypatch.setenv("TTT_DB", str(db_path))
    text = (Path(__file__).resolve().parents[1] / "docs" / "interop.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) == 3
    for block in blocks:
        exec(compile(block.replace("5_000", "500"), "docs/interop.md", "exec"), {})
    printed = capsys.readouterr().out
    assert "solved: False" in printed and "would have held" in printed
    rounds = [line for line in printed.splitlines() if " episodes: exploitability " in line]
    assert [line.split(" episodes")[0].strip() for line in rounds] == ["500", "1,000", "1,500", "2,000"]
    assert all(0 <= float(line.split("exploitability ")[1].split(",")[0]) <= 1 for line in rounds)


def test_without_the_extras_the_error_says_what_to_install(db: SolutionDatabase, monkeypatch, run) -> None:
    import sys

    from ttt_db.ais import openspiel, pettingzoo
    from ttt_db.errors import MissingExtraError

    for module in ("pyspiel", "pettingzoo", "distributed"):
        monkeypatch.setitem(sys.modules, module, None)  # an import of it fails, as when it is not installed
    with pytest.raises(MissingExtraError, match=r"pip install 'ttt-db\[openspiel\]'"):
        openspiel.perfect_policy(db)
    with pytest.raises(MissingExtraError, match=r"pip install 'ttt-db\[pettingzoo\]'"):
        pettingzoo.environment_at("." * 9)
    built = run("build", "--game", "3x4k3", "--workers", "2", "--db", "unused.sqlite")
    assert built.exit_code == 2 and "pip install 'ttt-db[dask]'" in built.stderr
