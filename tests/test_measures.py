"""How good a policy is, exactly (issue 35): every measure held to tests/reference.py's plain
recursive expectation over the game tree, for deterministic, stochastic and asymmetric policies
and for one that answers probabilities; the loss decomposition adding up; bad probabilities
failing their board; `ttt-db score` as text and JSON, a user's plug-in included; OpenSpiel's own
exploitability on a small m,n,k game."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import pytest
import reference

from ttt_db.ais.calling import policy_at
from ttt_db.ais.protocol import NamedAI
from ttt_db.ais.registry import load_ai
from ttt_db.checks.measures import measure_policy
from ttt_db.checks.policy_figures import OPPONENTS
from ttt_db.checks.report import run_checks
from ttt_db.errors import AIMisbehaved
from ttt_db.store.database import SolutionDatabase, open_database


def _uniform(moves) -> dict[int, Fraction]:
    return {move: Fraction(1, len(moves)) for move in moves}


def _epsilon_first_free(board: str) -> dict[int, float]:
    """A learner's shape: the first free cell with probability 0.7, the rest uniformly."""
    free = [cell for cell, mark in enumerate(board) if mark == "."]
    if len(free) == 1:
        return {free[0]: 1.0}
    rest = 0.3 / (len(free) - 1)
    return {cell: (0.7 if cell == free[0] else rest) for cell in free}


def _held_to_reference(measures, policy) -> None:
    expected = reference.policy_expectations(policy)
    for seat, measured in measures.seats.items():
        assert measured.value == expected[seat]["value"]
        for opponent in OPPONENTS:
            assert measured.against[opponent].score == expected[seat][opponent], (seat, opponent)
            outcome = measured.against[opponent]
            assert outcome.win + outcome.draw + outcome.loss == 1
        assert measured.lost == sum(measured.lost_by_depth.values())  # the decomposition adds up
    br = sum(expected[seat]["best_response"] for seat in ("o", "x"))
    assert measures.nash_conv == -br and measures.exploitability == -br / 2


@pytest.mark.parametrize("name", ["perfect", "ai1s", "ai2s", "ai14s"])
def test_the_built_in_ais_measures_are_the_references(db: SolutionDatabase, name: str) -> None:
    ai = load_ai(name, lambda: db)
    measures = measure_policy(ai, db)
    _held_to_reference(measures, lambda board: _uniform(ai.play(board)))
    if name == "perfect":
        assert measures.exploitability == 0 and all(seat.lost == 0 for seat in measures.seats.values())
    if name == "ai1s":  # deterministic and asymmetric: its positions, not classes
        assert measures.seats["o"].against["perfect"].loss == 1


def test_a_policy_of_probabilities_is_measured_as_given(db: SolutionDatabase) -> None:
    named = NamedAI("eps", _epsilon_first_free, None, "0.7 on the first free cell")
    heard: list[int] = []
    measures = measure_policy(named, db, progress=heard.append)
    assert heard == list(range(1, measures.asked + 1))  # each new position asked, once

    def exact(board: str) -> dict[int, Fraction]:
        return policy_at(_epsilon_first_free, board)

    _held_to_reference(measures, exact)
    costs = measures.seats["o"].costliest
    assert costs and costs == sorted(costs, key=lambda cost: -cost.share)
    assert all(sum(p for _, p, _ in cost.moves) == 1 for cost in costs)


def test_a_rare_losing_move_is_not_solved_yet_barely_exploitable(db: SolutionDatabase) -> None:
    """Perfect but for 1e-6 on a losing move at one board: the check says not solved, and its
    exploitability is above 0 and tiny."""
    perfect = load_ai("perfect", lambda: db).play
    board_of_slip = "....o...."  # x's reply to the centre: an edge loses

    def slipping(board: str) -> dict[int, float]:
        best = perfect(board)
        if board != board_of_slip:
            return {move: 1 / len(best) for move in best}
        return {**{move: (1 - 1e-6) / len(best) for move in best}, 1: 1e-6}

    assert 1 not in perfect(board_of_slip)
    named = NamedAI("slips", slipping, None, "perfect but for 1e-6")
    assert run_checks(named, db, weak=False).solved is False
    measures = measure_policy(named, db)
    assert 0 < measures.exploitability < Fraction(1, 10**5)
    assert measures.seats["o"].lost == 0 and measures.seats["x"].lost > 0


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ({4: 0.5, 1: 0.6}, "the AI's probabilities sum to 1.1, not 1"),
        ({4: 1.5, 1: -0.5}, "the AI gave move 1 a negative probability, -0.5"),
        ({4: math.nan}, "the AI gave move 4 the probability nan, not a number"),
        ({4: math.inf}, "the AI gave move 4 the probability inf, not a finite number"),
        ({4: "1e-999999999"}, "the AI gave move 4 the probability '1e-999999999', not a number or a fraction"),
        ({4: True}, "the AI gave move 4 the probability True, a truth value, not a number"),
        ([(4, "1/1000003")] * 80_000, "the AI gave 80,000 probabilities, more than 4 per cell of the board"),
        ({4: 0.5, 9: 0.5}, "the AI gave a probability to 9, off the board"),
        ([(0, 0.5), (4, 0.5)], "the AI gave a probability to 0, a cell taken by o"),
    ],
)
def test_bad_probabilities_fail_their_board_with_the_reason(answer: object, reason: str) -> None:
    with pytest.raises(AIMisbehaved) as raised:
        policy_at(lambda board: answer, "o........")
    assert raised.value.reason.startswith(reason)


def test_a_float32_softmax_is_read_and_scaled_to_one() -> None:
    """A network's softmax in float32 sums to 1 only within float32's rounding (here by about 1e-8,
    too far for a float64 tolerance): it is read, and scaled to sum to 1 exactly."""
    import numpy as np

    logits = np.arange(8, dtype=np.float32) / 3
    shares = np.exp(logits) / np.exp(logits).sum()
    answer = dict(zip(range(1, 9), shares.tolist(), strict=True))
    assert abs(math.fsum(answer.values()) - 1) > 1e-9
    policy = policy_at(lambda board: answer, "o........")
    assert sum(policy.values()) == 1 and set(policy) == set(range(1, 9))
    assert policy[8] > policy[1]


def test_a_move_given_many_times_is_summed_in_lowest_terms() -> None:
    """Issue 58: pairs for one move were added without reducing, the denominator growing with each."""
    pairs = [(4, Fraction(1, 36))] * 36
    assert policy_at(lambda board: pairs, "o........") == {4: Fraction(1)}
    primes = [(1, Fraction(1, 3)), (1, Fraction(1, 6)), (2, Fraction(1, 2))]
    assert policy_at(lambda board: primes, "o........") == {1: Fraction(1, 2), 2: Fraction(1, 2)}


def test_pairs_and_near_one_sums_are_read_exactly() -> None:
    assert policy_at(lambda board: [(1, 0.25), (2, 0.75)], "o........") == {1: Fraction(1, 4), 2: Fraction(3, 4)}
    third = 1 / 3
    assert policy_at(lambda board: {1: third, 2: third, 3: third}, "o........") == _uniform([1, 2, 3])
    assert policy_at(lambda board: {1: 1.0, 2: 0.0}, "o........") == {1: Fraction(1)}  # support only
    twice = [(1, 0.25), (2, 0.5), (1, 0.25)]  # a move given twice: its shares summed
    assert policy_at(lambda board: twice, "o........") == {1: Fraction(1, 2), 2: Fraction(1, 2)}
    tenths = {1: 0.1, 2: 0.2, 3: 0.7}  # issue 59: floats at their shortest decimal, not 68-digit binaries
    assert policy_at(lambda board: tenths, "o........") == {1: Fraction(1, 10), 2: Fraction(1, 5), 3: Fraction(7, 10)}
    near = {1: 0.1, 2: 0.2, 3: 0.7000000001}  # summing to 1 within the tolerance: scaled, exactly
    total = Fraction("1.0000000001")
    assert policy_at(lambda board: near, "o........") == {
        1: Fraction(1, 10) / total,
        2: Fraction(1, 5) / total,
        3: Fraction("0.7000000001") / total,
    }


def test_score_prints_every_measure_and_json(run, db: SolutionDatabase) -> None:
    text = run("score", "ai2s", "--show", "2")
    assert text.exit_code == 0, text.output
    measures = measure_policy(load_ai("ai2s", lambda: db), db)
    lines = text.stdout.splitlines()
    assert lines[0] == f"ai2s on 3x3k3: exact, over the ranked core's {measures.asked:,} positions"
    o_perfect = measures.seats["o"].against["perfect"]
    assert f"against perfect play:     win {float(o_perfect.win):7.2%}, draw {float(o_perfect.draw):7.2%}" in lines[2]
    assert lines[-1].startswith(f"NashConv {float(measures.nash_conv):.6g}, exploitability ")
    # issue 59: a costliest position's line reads in words, no "x lost" a reader takes for player x
    costliest = measures.seats["o"].costliest[0]
    shown = [line for line in lines if line.startswith(f"    {costliest.board}  ")][0]
    assert f"reached in {float(costliest.reach):.2%} of games, gives up {float(costliest.lost):.3f} there" in shown
    assert " x lost " not in text.stdout
    document = json.loads(run("score", "ai2s", "--json").stdout)
    assert document["exact"]["exploitability"] == str(measures.exploitability)
    assert document["over_core"] is True and document["arithmetic"] == "exact"
    assert document["seats"]["x"]["against"]["random"]["exact"]["win"] == str(measures.seats["x"].against["random"].win)
    assert len(document["seats"]["o"]["costliest"]) == 5


def test_score_asks_a_users_plug_in_in_its_own_process_and_keeps_its_probabilities(
    run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, db: SolutionDatabase
) -> None:
    (tmp_path / "eps_bot.py").write_text(
        "def play(board):\n"
        "    free = [cell for cell, mark in enumerate(board) if mark == '.']\n"
        "    if len(free) == 1:\n"
        "        return {free[0]: 1.0}\n"
        "    rest = 0.3 / (len(free) - 1)\n"
        "    return {cell: (0.7 if cell == free[0] else rest) for cell in free}\n"
    )
    monkeypatch.chdir(tmp_path)
    result = run("score", "eps_bot.py:play", "--json")
    assert result.exit_code == 0, result.output
    in_process = measure_policy(NamedAI("eps", _epsilon_first_free, None, ""), db)
    assert json.loads(result.stdout)["exact"]["nash_conv"] == str(in_process.nash_conv)


def test_a_game_too_large_to_measure_by_position_is_refused_before_any_build(run, tmp_path: Path) -> None:
    refused = run("score", "ai1s", "--game", "4x4k4", "--db", str(tmp_path / "big.sqlite"))
    assert refused.exit_code == 2
    assert "games over 12 cells (4x4k4 has 16) measure a policy over the ranked core" in refused.stderr
    beside = run("score", "perfect", "--against", "ai14s", "--game", "4x4k4", "--db", str(tmp_path / "big.sqlite"))
    assert beside.exit_code == 2 and "ai14s" in beside.stderr
    too_large = run("score", "perfect", "--game", "5x5k4", "--db", str(tmp_path / "huge.sqlite"))
    assert too_large.exit_code == 2 and "games of at most 20 cells; 5x5k4 has 25" in too_large.stderr
    assert not list(tmp_path.iterdir())


def _first_free(board: str) -> list[int]:
    return [board.index(".")]


def test_a_plug_in_on_a_game_over_12_cells_is_measured_within_a_budget(
    run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Board by board, as on a small game, but only with --max-boards or --max-seconds: a position
    it is not asked at then counts as lost in the worst case and at its value (against perfect play
    and a best response) or won in the best (the whole game below it is not searched)."""
    from ttt_db.checks.budget import CheckBudget
    from ttt_db.game.definition import Game

    (tmp_path / "first_free.py").write_text("def play(board):\n    return [board.index('.')]\n")
    monkeypatch.chdir(tmp_path)
    where = ["--game", "2x7k3", "--db", str(tmp_path / "2x7k3.sqlite")]
    refused = run("score", "first_free.py:play", *where)
    assert refused.exit_code == 2 and "allows only within a budget" in refused.stderr
    assert run("build", "--quiet", *where).exit_code == 0
    with open_database(tmp_path / "2x7k3.sqlite", game=Game.parse("2x7k3")) as small:
        exact = measure_policy(NamedAI("first", _first_free, False, ""), small, budget=CheckBudget(max_boards=10**6))
    assert exact.stopped is None and exact.asked > 1000
    whole = json.loads(run("score", "first_free.py:play", "--max-boards", str(exact.asked), "--json", *where).stdout)
    assert whole["stopped"] is None and whole["exact"]["nash_conv"] == str(exact.nash_conv)
    part = run("score", "first_free.py:play", "--max-boards", "50", "--json", *where)
    assert part.exit_code == 4
    least, most = json.loads(part.stdout)["nash_conv_bounds"]
    assert least <= float(exact.nash_conv) <= most


def test_uniform_randoms_exploitability_is_openspiels(tmp_path: Path) -> None:
    """OpenSpiel's `exploitability` walks the tree (tens of seconds on tic-tac-toe, which the
    benchmark compares); here on the 2x3 board with k=2, its `mnk` game."""
    pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel is not installed: pip install 'ttt-db[openspiel]'")
    from open_spiel.python import policy as spiel_policy
    from open_spiel.python.algorithms import exploitability

    from ttt_db.build import build_database
    from ttt_db.game.definition import Game
    from ttt_db.store.database import open_database

    game = Game.parse("2x3k2")
    build_database(tmp_path / "small.sqlite", game=game)
    spiel_game = pyspiel.load_game("mnk(m=3,n=2,k=2)")  # m columns, n rows
    theirs = exploitability.exploitability(spiel_game, spiel_policy.UniformRandomPolicy(spiel_game))
    with open_database(tmp_path / "small.sqlite") as small:
        ours = measure_policy(load_ai("ai2s", lambda: small, game=game), small).exploitability
    assert math.isclose(float(ours), theirs, rel_tol=1e-12)


def test_the_worked_example_in_checks_md_is_the_measures(db: SolutionDatabase) -> None:
    text = " ".join((Path(__file__).resolve().parents[1] / "docs" / "checks.md").read_text().split())
    random_ai = measure_policy(load_ai("ai2s", lambda: db), db)
    o = random_ai.seats["o"].against["perfect"]
    assert f"draws {float(o.draw):.2%} of its games and loses {float(o.loss):.2%}" in text
    assert f"(expected score {float(o.score):+.4f})" in text
    moves_made = ", ".join(str(depth) for depth in sorted(random_ai.seats["o"].lost_by_depth))
    assert moves_made == "2, 4, 6" and "at moves 2, 4 and 6" in text
    perfect = measure_policy(load_ai("perfect", lambda: db), db)
    assert f"wins {float(perfect.seats['o'].against['random'].win):.2%}, not the" in text
    assert (
        f"exploitability is {float(random_ai.exploitability):.6g} (NashConv {float(random_ai.nash_conv):.6g})" in text
    )
    rules = measure_policy(load_ai("ai14s", lambda: db), db)
    assert rules.exploitability == 0
    assert f"nearer ai14s's figure: {float(rules.seats['o'].against['random'].win):.2%}, as o" in text


def _graded(skill: Fraction):
    def policy(board: str) -> dict[int, Fraction]:
        best = reference.best_moves(board)
        legal = [cell for cell, mark in enumerate(board) if mark == "."]
        chosen = {move: (1 - skill) / len(legal) for move in legal}
        for move in best:
            chosen[move] += skill / len(best)
        return {move: p for move, p in chosen.items() if p}

    return policy


def test_perfect_at_p_plays_a_best_move_with_probability_p(db: SolutionDatabase) -> None:
    graded = load_ai("perfect@0.9", lambda: db)
    assert graded.name == "perfect@0.9"
    expected = _graded(Fraction(9, 10))
    playing = [board for board in reference.reachable() if not reference.TICTACTOE.finished(board)]
    for board in playing[::37]:
        assert policy_at(graded.play, board) == expected(board), board
    assert policy_at(load_ai("perfect@1", lambda: db).play, "o........") == _uniform(reference.best_moves("o........"))
    assert run_checks(graded, db, weak=False).solved is False  # its support is every move


@pytest.mark.parametrize(("first", "second"), [("perfect@0.9", "ai2s"), ("ai14s", "perfect@0.5"), ("ai1s", "ai2s")])
def test_an_exact_match_is_the_references(db: SolutionDatabase, first: str, second: str) -> None:
    from ttt_db.checks.measures import exact_match

    one, two = load_ai(first, lambda: db), load_ai(second, lambda: db)
    outcomes = exact_match(one, two, db.game)
    for seat in ("o", "x"):
        expected = reference.match_expectation(
            lambda board: policy_at(one.play, board), lambda board: policy_at(two.play, board), seat
        )
        assert (outcomes[seat].win, outcomes[seat].draw, outcomes[seat].loss) == expected


def test_perfect_never_loses_an_exact_match_and_sampled_games_follow_the_probabilities(
    run, db: SolutionDatabase
) -> None:
    from ttt_db.checks.measures import exact_match
    from ttt_db.play.match import run_match

    perfect = load_ai("perfect", lambda: db)
    for opponent in ("ai1s", "ai2s", "ai14s", "perfect@0.3"):
        outcomes = exact_match(perfect, load_ai(opponent, lambda: db), db.game)
        assert outcomes["o"].loss == outcomes["x"].loss == 0, opponent
    graded = load_ai("perfect@0.9", lambda: db)
    exact = exact_match(graded, load_ai("ai2s", lambda: db), db.game)["o"]
    games = 20_000
    sampled = run_match(graded.play, load_ai("ai2s", lambda: db).play, games, game=db.game, seed=7).as_o
    spread = 5 * math.sqrt(float(exact.win * (1 - exact.win)) / games)  # five standard deviations
    assert abs(sampled.win / games - float(exact.win)) < spread
    text = run("match", "perfect@0.9", "ai2s", "--exact").stdout.splitlines()
    assert text[2].startswith("as o") and f"{float(exact.win):.4%}" in text[2]


def test_a_trained_q_learners_exploitability_is_openspiels(tmp_path: Path) -> None:
    """OpenSpiel's tabular Q-learner, trained a little on the 2x3 board with k=3, read by `from_agent`: its
    exploitability is OpenSpiel's own for the same agents (`JointRLAgentPolicy`)."""
    pytest.importorskip("pyspiel", reason="OpenSpiel is not installed: pip install 'ttt-db[openspiel]'")
    import numpy as np
    from open_spiel.python import rl_agent_policy, rl_environment
    from open_spiel.python.algorithms import exploitability, tabular_qlearner

    from ttt_db.ais.openspiel import from_agent, spiel_game
    from ttt_db.build import build_database
    from ttt_db.game.definition import Game
    from ttt_db.store.database import open_database

    game = Game.parse("2x3k3")
    build_database(tmp_path / "small.sqlite", game=game)
    np.random.seed(1)
    environment = rl_environment.Environment(spiel_game(game))
    agents = [tabular_qlearner.QLearner(player_id=player, num_actions=game.cells) for player in range(2)]
    for _ in range(100):
        step = environment.reset()
        while not step.last():
            step = environment.step([agents[step.observations["current_player"]].step(step).action])
        for agent in agents:
            agent.step(step)
    joint = rl_agent_policy.JointRLAgentPolicy(spiel_game(game), dict(enumerate(agents)), use_observation=True)
    theirs = exploitability.exploitability(spiel_game(game), joint)
    with open_database(tmp_path / "small.sqlite") as small:
        play = from_agent(agents)
        ours = measure_policy(NamedAI("q", lambda board: play(board, game), None, "q"), small).exploitability
    assert theirs > 0 and math.isclose(float(ours), theirs, rel_tol=1e-9)


@pytest.mark.parametrize("budget", [0, 30, 300])
def test_a_spent_budget_gives_bounds_the_exact_measures_lie_between(db: SolutionDatabase, budget: int) -> None:
    from ttt_db.checks.budget import CheckBudget

    # ai2s as a user's AI would be (asked board by board: a CorePolicy is measured over the core, asking nothing)
    for ai in (NamedAI("random", load_ai("ai2s").play, True, ""), NamedAI("eps", _epsilon_first_free, None, "")):
        exact = measure_policy(ai, db)
        part = measure_policy(ai, db, budget=CheckBudget(max_boards=budget))
        assert part.stopped == "max_boards" and part.asked == budget and part.best_case is not None
        for seat in ("o", "x"):
            for opponent, truth in exact.seats[seat].against.items():
                worst, best = part.seats[seat].against[opponent], part.best_case[seat][opponent]
                assert worst.score <= truth.score <= best.score, (seat, opponent)
                assert worst.win + worst.draw + worst.loss == 1 == best.win + best.draw + best.loss
            assert part.seats[seat].lost >= exact.seats[seat].lost
        least, most = part.nash_conv_bounds
        assert least <= exact.nash_conv <= most
        if budget == 0:  # nothing asked: anything from best play (a draw each seat) to losing every game
            assert (least, most) == (0, 2)
        whole = measure_policy(ai, db, budget=CheckBudget(max_boards=exact.asked))
        assert whole.stopped is None and whole.nash_conv == exact.nash_conv


def test_score_stopped_by_its_budget_says_so_with_bounds_and_exits_4(
    run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, db: SolutionDatabase
) -> None:
    (tmp_path / "eps_bot.py").write_text(
        "def play(board):\n"
        "    free = [cell for cell, mark in enumerate(board) if mark == '.']\n"
        "    return {cell: 1 / len(free) for cell in free}\n"
    )
    monkeypatch.chdir(tmp_path)
    text = run("score", "eps_bot.py:play", "--max-boards", "50")
    assert text.exit_code == 4, text.output
    assert text.stdout.startswith("eps_bot.py:play on 3x3k3: stopped by --max-boards after 50 positions asked")
    assert "NashConv between " in text.stdout.splitlines()[-1]
    core = run("score", "ai2s", "--max-boards", "50")  # the core plays ai2s itself: nothing is asked
    assert core.exit_code == 0 and core.stdout.startswith(
        "ai2s on 3x3k3: exact, over the ranked core's 5,478 positions"
    )
    result = run("score", "eps_bot.py:play", "--max-boards", "20", "--json")
    assert result.exit_code == 4, result.output
    document = json.loads(result.stdout)
    assert document["stopped"] == "max_boards" and document["asked"] == 20 and document["nash_conv"] is None
    least, most = document["nash_conv_bounds"]
    uniform = measure_policy(load_ai("ai2s", lambda: db), db).nash_conv  # ai2s plays uniformly at random
    assert 0 <= least <= uniform <= most <= 2
    assert set(document["best_case"]["o"]) == set(document["seats"]["o"]["against"])


def test_score_without_a_best_response_leaves_it_and_nash_conv_out(run, db: SolutionDatabase) -> None:
    """`score --no-best-response`, over the core (ai2s) and asked position by position (ai14s): the
    same outcomes against perfect and random play, no best response, and the last line says why
    there is no NashConv."""
    for name in ("ai2s", "ai14s"):
        whole = json.loads(run("score", name, "--json").stdout)
        text = run("score", name, "--no-best-response")
        assert text.exit_code == 0, text.output
        assert text.stdout.splitlines()[-1] == (
            "no best response measured (--no-best-response): no NashConv or exploitability"
        )
        assert "a best response:" not in text.stdout and "against uniform random:" in text.stdout
        part = json.loads(run("score", name, "--no-best-response", "--json").stdout)
        assert part["nash_conv"] is None and part["exploitability"] is None
        for seat in ("o", "x"):
            against = part["seats"][seat]["against"]
            assert list(against) == ["perfect", "random"]
            assert against == {k: v for k, v in whole["seats"][seat]["against"].items() if k != "best_response"}
    stopped = run("score", "ai14s", "--no-best-response", "--max-boards", "20", "--json")
    assert stopped.exit_code == 4, stopped.output
    document = json.loads(stopped.stdout)
    assert document["nash_conv_bounds"] is None and list(document["best_case"]["o"]) == ["perfect", "random"]


def test_an_answer_of_several_moves_is_said_to_be_taken_as_uniform(run, db: SolutionDatabase, tmp_path: Path) -> None:
    """Issue 59: a list answer was measured as each move equally likely, and `score` never said so."""

    def two(board: str) -> list[int]:
        return [i for i, cell in enumerate(board) if cell == "."][:2]

    def halves(board: str) -> dict[int, float]:
        moves = two(board)
        return {move: 1 / len(moves) for move in moves}

    listed = measure_policy(NamedAI("two", two, None, ""), db)
    given = measure_policy(NamedAI("halves", halves, None, ""), db)
    assert listed.seats == given.seats and given.uniform_answers == 0
    several = {board for board in _reached_boards(two, db) if len(two(board)) > 1}
    assert listed.uniform_answers == len(several) > 0
    assert listed.to_document()["uniform_answers"] == len(several)
    (tmp_path / "two_moves.py").write_text(
        "def play(board):\n    return [i for i, c in enumerate(board) if c == '.'][:2]\n"
    )
    text = run("score", str(tmp_path / "two_moves.py") + ":play").stdout
    assert f"at {len(several):,} positions it answered several moves: each is taken as played with the same" in text


def _reached_boards(play: Callable[[str], list[int]], db: SolutionDatabase) -> set[str]:
    """The boards in play where `play` moves, in either seat, against every reply (reference rules)."""
    rules = reference.TICTACTOE
    found: set[str] = set()
    for seat in ("o", "x"):
        frontier, seen = [rules.empty], set()
        while frontier:
            board = frontier.pop()
            if board in seen or rules.finished(board):
                continue
            seen.add(board)
            children = dict(rules.children(board))
            if rules.mover(board) == seat:
                found.add(board)
                frontier += [children[move] for move in play(board)]
            else:
                frontier += children.values()
    return found
