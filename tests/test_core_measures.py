"""A policy the core plays, measured over the ranked core (issue 35, at every size): held to the
position-by-position measures (exact fractions: every outcome, the loss by depth, NashConv) and to
tests/reference.py's expectations, on a square and a rectangular board (their symmetries differ);
the compiled kernel within rounding of them in float64; the costliest classes the sums of their
boards' costs; `score` and `match --exact` choosing the core where it plays both AIs."""

from __future__ import annotations

import json
import math
import random
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest
import reference

from ttt_db.ais.calling import policy_at
from ttt_db.ais.protocol import NamedAI
from ttt_db.ais.registry import load_ai
from ttt_db.ais.tabular import table_ai
from ttt_db.build import build_database
from ttt_db.checks import core_measures
from ttt_db.checks.measures import exact_match, measure_policy
from ttt_db.checks.policy_figures import PolicyMeasures
from ttt_db.game.definition import Game
from ttt_db.game.rules import empty_cells
from ttt_db.game.symmetry import symmetric_images
from ttt_db.ranked import policy
from ttt_db.ranked.kernels.moves import chosen_move, move_kinds
from ttt_db.ranked.kernels.policy import add_compensated
from ttt_db.ranked.slots import representative
from ttt_db.store.database import SolutionDatabase, open_database

POLICIES = ("perfect@0.9", "ai2s", "perfect-shortest@1/3", "perfect", "a symmetric table")
RULES = {"3x3k3": reference.TICTACTOE, "2x4k3": reference.Rules(2, 4, 3)}


@pytest.fixture(scope="module")
def small_paths(db_path: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    rectangle = tmp_path_factory.mktemp("2x4k3") / "2x4k3.sqlite"
    build_database(rectangle, game=Game.parse("2x4k3"))
    return {"3x3k3": db_path, "2x4k3": rectangle}


def _symmetric_table(db: SolutionDatabase, seed: int = 7) -> dict[str, dict[int, Fraction]]:
    """A table of half the classes in play, each at its canonical board, with seeded odds made
    alike at the cells a symmetry of the board swaps (a symmetric table must play them alike)."""
    game, draw = db.game, random.Random(seed)
    table = {}
    for position in db.all_positions():
        board = position.cells
        if position.status != "playing" or board != min(symmetric_images(board, game)) or draw.random() < 0.5:
            continue
        weights = {move: Fraction(draw.randint(0, 3)) for move in empty_cells(board)}
        weights[min(weights)] += 1
        fixing = [t for t, image in enumerate(symmetric_images(board, game)) if image == board]
        alike = {move: sum(weights[game.transforms[t][move]] for t in fixing) for move in weights}
        total = sum(alike.values())
        table[board] = {move: weight / total for move, weight in alike.items() if weight}
    return table


def _policy(name: str, db: SolutionDatabase) -> NamedAI:
    if name == "a symmetric table":
        return table_ai(_symmetric_table(db), db.game, symmetric=True, name=name)
    return load_ai(name, lambda: db, game=db.game)


def _by_position(ai: NamedAI, db: SolutionDatabase, against: list[NamedAI]) -> PolicyMeasures:
    """The same AIs asked board by board: measured position by position."""
    return measure_policy(
        replace(ai, core_policy=None), db, costliest=10**6, against=[replace(a, core_policy=None) for a in against]
    )


def _class_shares(measures: PolicyMeasures, seat: str, game: Game) -> dict[tuple[int, int], Fraction]:
    """Each class's share of the points lost: its boards' costs added up."""
    shares: dict[tuple[int, int], Fraction] = {}
    for cost in measures.seats[seat].costliest:
        key = representative(cost.board, game)[:2]
        shares[key] = shares.get(key, Fraction(0)) + Fraction(cost.share)
    return shares


@pytest.mark.parametrize("game_name", list(RULES))
@pytest.mark.parametrize("name", POLICIES)
def test_over_the_core_the_measures_are_exactly_the_position_by_position_ones(
    game_name: str, name: str, small_paths: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TTT_DB_KERNEL", "interpreted")
    with open_database(small_paths[game_name]) as db:
        ai = _policy(name, db)
        against = [load_ai("perfect-shortest@0.5", lambda: db, game=db.game)]
        over = measure_policy(ai, db, against=against)
        assert over.over_core and over.exact and over.asked == db.meta()["figures"]["positions"]
        by_position = _by_position(ai, db, against)
        assert not by_position.over_core
        expected = reference.policy_expectations(lambda board: policy_at(ai.play, board), RULES[game_name])
        for seat in ("o", "x"):
            mine, theirs = over.seats[seat], by_position.seats[seat]
            assert mine.against == theirs.against  # win, draw and loss, a best response's ties broken alike
            assert mine.value == theirs.value == expected[seat]["value"]
            for opponent in ("perfect", "best_response", "random"):
                assert mine.against[opponent].score == expected[seat][opponent]
            assert mine.lost_by_depth == theirs.lost_by_depth
            classes = _class_shares(by_position, seat, db.game)
            assert sorted(classes.values(), reverse=True)[: len(mine.costliest)] == [c.share for c in mine.costliest]
            for cost in mine.costliest:
                assert classes[representative(cost.board, db.game)[:2]] == cost.share
                assert cost.reach * cost.lost == cost.share and cost.ply == db.game.cells - cost.board.count(".")
        assert over.nash_conv == by_position.nash_conv


@pytest.mark.parametrize("game_name", list(RULES))
def test_passes_split_to_fit_their_memory_measure_the_same(
    game_name: str, small_paths: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where a pass's numbers would pass PASS_BYTES, a pass takes one seat (backward, against a
    best response) or one opponent (forward): the same figures, each position met once a pass."""
    monkeypatch.setenv("TTT_DB_KERNEL", "interpreted")
    with open_database(small_paths[game_name]) as db:
        ai = _policy("perfect@0.9", db)
        against = [load_ai("perfect-shortest@0.5", lambda: db, game=db.game)]
        whole = measure_policy(ai, db, against=against, costliest=5)
        assert core_measures.over_core_passes(db, against) == 3  # the walk, one pass each way
        monkeypatch.setattr(core_measures, "PASS_BYTES", 1)
        heard: list[int] = []
        split = measure_policy(ai, db, against=against, costliest=5, progress=heard.append)
        passes = core_measures.over_core_passes(db, against)
        assert passes == 1 + 2 + 3  # the walk, a seat a pass, an opponent a pass (perfect, random, the other)
        named_perfect = [load_ai("perfect", lambda: db, game=db.game)]
        assert core_measures.over_core_passes(db, named_perfect) == 1 + 2 + 2  # perfect play is measured once
        assert heard == sorted(heard) and heard[-1] == passes * db.meta()["figures"]["positions"]
    assert split.to_document() == whole.to_document()


@pytest.mark.parametrize("game_name", list(RULES))
def test_the_compiled_kernel_measures_in_float64_within_rounding(
    game_name: str, small_paths: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("numba")
    with open_database(small_paths[game_name]) as db:
        exact = {name: measure_policy(_policy(name, db), db) for name in POLICIES}
    monkeypatch.setenv("TTT_DB_KERNEL", "compiled")
    monkeypatch.setattr(core_measures, "MEASURED_MAX_CELLS", 0)  # as a game over 12 cells is measured
    monkeypatch.setattr(policy, "RANGE_SLOTS", 1)  # a set a range: ranges run at once on every core
    with open_database(small_paths[game_name]) as db:
        floats_of = {}
        for name, truth in exact.items():
            floats = measure_policy(_policy(name, db), db)
            floats_of[name] = floats.to_document()
            assert floats.over_core and not floats.exact
            assert floats.to_document()["arithmetic"] == "float64" and floats.to_document()["exact"] is None
            for seat in ("o", "x"):
                for opponent, outcome in truth.seats[seat].against.items():
                    found = floats.seats[seat].against[opponent]
                    for field in ("win", "draw", "loss"):
                        assert abs(getattr(found, field) - float(getattr(outcome, field))) < 1e-15, (seat, opponent)
                lost = truth.seats[seat].lost_by_depth
                assert set(floats.seats[seat].lost_by_depth) == set(lost)
                assert all(abs(floats.seats[seat].lost_by_depth[d] - float(v)) < 1e-15 for d, v in lost.items())
                assert [c.board for c in floats.seats[seat].costliest] == [c.board for c in truth.seats[seat].costliest]
            assert abs(floats.nash_conv - float(truth.nash_conv)) < 1e-15
        monkeypatch.setattr(core_measures, "PASS_BYTES", 1)  # compiled too, a seat or an opponent a pass
        split = measure_policy(_policy("perfect@0.9", db), db).to_document()
    whole = floats_of["perfect@0.9"]
    assert split["seats"] == whole["seats"] and split["nash_conv"] == whole["nash_conv"]


def test_a_game_of_twelve_cells_is_measured_exactly_and_in_float64_within_an_ulp_or_two(
    run, db_3x4k3_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 59: 3x4k3 (12 cells, compiled) was measured in float64 though the docs say exact; in
    float64 (as a game over 12 cells is) each total of many small probabilities is summed with its
    rounding kept, so that every figure is within 1e-15 of the exact one."""
    pytest.importorskip("numba")
    monkeypatch.setenv("TTT_DB_KERNEL", "compiled")
    text = run("score", "perfect@0.9", "--game", "3x4k3", "--db", str(db_3x4k3_path), "--json")
    assert text.exit_code == 0, text.output
    document = json.loads(text.stdout)
    assert document["arithmetic"] == "exact" and document["exact"] is not None
    monkeypatch.setattr(core_measures, "MEASURED_MAX_CELLS", 0)
    with open_database(db_3x4k3_path) as db:
        floats = measure_policy(_policy("perfect@0.9", db), db)
    assert not floats.exact
    for seat in ("o", "x"):
        for opponent, outcome in document["seats"][seat]["against"].items():
            found = floats.seats[seat].against[opponent]
            for field in ("win", "draw", "loss"):
                error = abs(Fraction(getattr(found, field)) - Fraction(outcome["exact"][field]))
                assert error < 1e-15, (seat, opponent, field)


def test_a_compensated_sum_keeps_what_a_plain_one_rounds_away() -> None:
    sums = [1.0, 0.0]
    plain = 1.0
    for _ in range(1000):
        add_compensated(sums, 0, 1e-16)
        plain += 1e-16
    assert plain == 1.0 and abs(sums[0] + sums[1] - math.fsum([1.0] + [1e-16] * 1000)) <= math.ulp(1.0)
    exact = [Fraction(1), Fraction(0)]
    add_compensated(exact, 0, Fraction(1, 3))
    assert exact == [Fraction(4, 3), 0]


def test_both_kinds_of_a_move_at_once_are_the_one_rule_of_each_kind() -> None:
    kinds = {(w, top): move_kinds(w, top) for w in range(256) for top in range(256)}
    assert kinds == {(w, top): (int(chosen_move(1, w, top)), int(chosen_move(2, w, top))) for w, top in kinds}
    assert {kind for pair in kinds.values() for kind in pair} == {0, 1}  # neither kind always or never


def test_a_match_of_two_policies_the_core_plays_is_measured_over_it(db: SolutionDatabase) -> None:
    graded, random_ai = load_ai("perfect@0.9", lambda: db), load_ai("ai2s", lambda: db)
    over = exact_match(graded, random_ai, db.game, db)
    asked = exact_match(replace(graded, core_policy=None), random_ai, db.game, db)
    assert over == asked
    expected = reference.match_expectation(
        lambda board: policy_at(graded.play, board), lambda board: policy_at(random_ai.play, board), "o"
    )
    assert (over["o"].win, over["o"].draw, over["o"].loss) == expected


def test_score_on_a_compiled_game_says_it_counts_in_floating_point(
    run, db_3x4k3_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("numba")
    monkeypatch.setattr(core_measures, "MEASURED_MAX_CELLS", 0)  # as a game over 12 cells is measured
    with open_database(db_3x4k3_path) as db:
        positions = db.meta()["figures"]["positions"]
    text = run("score", "perfect@0.9", "--game", "3x4k3", "--db", str(db_3x4k3_path))
    assert text.exit_code == 0, text.output
    assert text.stdout.startswith(
        f"perfect@0.9 on 3x4k3: in floating point (float64), over the ranked core's {positions:,}"
    )
    document = json.loads(run("score", "perfect@0.9", "--game", "3x4k3", "--db", str(db_3x4k3_path), "--json").stdout)
    assert document["over_core"] is True and document["arithmetic"] == "float64" and document["exact"] is None
    assert document["seats"]["o"]["against"]["perfect"]["exact"] is None
    with open_database(db_3x4k3_path) as db:
        measured = measure_policy(load_ai("perfect@0.9", lambda: db, game=db.game), db, costliest=5)
    assert document == json.loads(json.dumps(measured.to_document()))


def test_ranges_measured_at_once_give_what_one_range_gives(
    db_3x4k3_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every range of a level runs on its own scratch: spread a set a range over every core, the
    figures are bit for bit those of whole levels."""
    pytest.importorskip("numba")
    monkeypatch.setenv("TTT_DB_KERNEL", "compiled")
    found = []
    for slots in (10**9, 1):
        monkeypatch.setattr(policy, "RANGE_SLOTS", slots)
        with open_database(db_3x4k3_path) as db:
            found.append(measure_policy(load_ai("perfect@0.9", lambda: db, game=db.game), db).to_document())
    assert found[0] == found[1]


@pytest.mark.parametrize("game_name", list(RULES))
def test_without_a_best_response_the_passes_backward_are_left_out_and_the_rest_is_the_same(
    game_name: str, small_paths: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`best_response=False` (`score --no-best-response`): no pass backward over the core, every other
    figure what the whole measures give, and no NashConv to ask for."""
    monkeypatch.setenv("TTT_DB_KERNEL", "interpreted")
    monkeypatch.setattr(core_measures, "PASS_BYTES", 1)  # a seat a pass backward: two passes to leave out
    with open_database(small_paths[game_name]) as db:
        ai = _policy("perfect@0.9", db)
        whole = measure_policy(ai, db, costliest=5)
        called: list[object] = []
        monkeypatch.setattr(core_measures._Walk, "best_response", lambda *args: called.append(args))
        heard: list[int] = []
        part = measure_policy(ai, db, costliest=5, progress=heard.append, best_response=False)
        assert called == []
        positions = db.meta()["figures"]["positions"]
        assert (
            core_measures.over_core_passes(db, best_response=False) == 1 + 2 == core_measures.over_core_passes(db) - 2
        )
        assert heard[-1] == 3 * positions
    assert not part.best_response and whole.best_response
    for seat in ("o", "x"):
        kept = {name: outcome for name, outcome in whole.seats[seat].against.items() if name != "best_response"}
        assert part.seats[seat].against == kept and list(kept) == ["perfect", "random"]
        assert part.seats[seat].costliest == whole.seats[seat].costliest
        assert part.seats[seat].lost_by_depth == whole.seats[seat].lost_by_depth
    with pytest.raises(ValueError, match="without a best response"):
        part.nash_conv  # noqa: B018
    document = part.to_document()
    assert document["nash_conv"] is None and document["exploitability"] is None and document["exact"] is None
    assert document["seats"] == {
        seat: {**measures, "against": {k: v for k, v in measures["against"].items() if k != "best_response"}}
        for seat, measures in whole.to_document()["seats"].items()
    }
    assert "measured without a best response" in part._repr_html_()


def test_an_exact_match_over_the_core_is_one_pass_forward_against_its_opponent_alone(
    db: SolutionDatabase, monkeypatch: pytest.MonkeyPatch
) -> None:
    graded, other = load_ai("perfect@0.9", lambda: db), load_ai("perfect-shortest@0.5", lambda: db)
    whole = measure_policy(graded, db, against=[other])
    monkeypatch.setattr(core_measures._Walk, "best_response", lambda *args: pytest.fail("a best response measured"))
    passes: list[tuple[int, ...]] = []
    forward = core_measures._Walk.forward
    monkeypatch.setattr(
        core_measures._Walk,
        "forward",
        lambda walk, group, reached: passes.append(group) or forward(walk, group, reached),
    )
    found = exact_match(graded, other, db.game, db)
    assert passes == [(1,)]  # the opponent is the kernels' policy 1: perfect and random play are not carried
    assert found == {seat: whole.seats[seat].against["perfect-shortest@0.5"] for seat in ("o", "x")}
