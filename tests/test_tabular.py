"""A tabular policy from a file (issue 35): read in every notation a board and a move have, refused
with the entry named when it cannot be used, played uniformly at random where it lists nothing,
measured exactly (held to tests/reference.py's expectation of the same table), over the ranked core
when it is symmetric (said or found so) and board by board when it is not."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
import reference
from spiel_tables import softmax_table

from ttt_db.ais.calling import policy_at
from ttt_db.ais.registry import load_ai
from ttt_db.ais.tabular import load_policy_file, table_ai
from ttt_db.build import build_database
from ttt_db.checks.measures import measure_policy
from ttt_db.cli.progress import LineBar
from ttt_db.errors import AILoadFailedError, AINotForGameError, UnknownAIError
from ttt_db.game.definition import Game
from ttt_db.game.rules import empty_cells
from ttt_db.game.symmetry import symmetric_images
from ttt_db.store.database import SolutionDatabase, open_database

TICTACTOE = Game.parse("3x3k3")


def _write(tmp_path: Path, document: object, name: str = "policy.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(document))
    return str(path)


def test_every_notation_of_a_board_a_move_and_a_probability_is_read(tmp_path: Path) -> None:
    spec = _write(
        tmp_path,
        {
            "game": "3x3k3",
            "policy": {
                "o../.../...": {"4": 1},  # rows with slashes; a move as a cell index
                "x.o......": {"b2": "1/3", "1": "2/3"},  # a move by name, exact fractions as text
                "........x:x": [[0, 0.25], [4, 0.75]],  # x moved first: stored with o first
                "ox.o.x...": [2, 6],  # moves played alike
            },
        },
    )
    ai = load_ai(spec, game=TICTACTOE)
    assert ai.name == spec and ai.deterministic
    assert policy_at(ai.play, "o........") == {4: Fraction(1)}
    assert policy_at(ai.play, "x.o......") == {1: Fraction(2, 3), 4: Fraction(1, 3)}
    assert policy_at(ai.play, "........o") == {0: Fraction(1, 4), 4: Fraction(3, 4)}
    assert policy_at(ai.play, "ox.o.x...") == {2: Fraction(1, 2), 6: Fraction(1, 2)}
    unlisted = "ox......."
    assert policy_at(ai.play, unlisted) == dict.fromkeys(empty_cells(unlisted), Fraction(1, 7))
    assert ai.core_policy is None and ai.symmetric is False  # a few boards, not their images
    x_first = load_ai(_write(tmp_path, {"first": "x", "policy": {"xo.......": [4]}}, "x.json"), game=TICTACTOE)
    assert policy_at(x_first.play, "ox.......") == {4: Fraction(1)}  # OpenSpiel's boards: x moved first
    assert policy_at(x_first.play, "xo.......") == dict.fromkeys(range(2, 9), Fraction(1, 7))  # another position


@pytest.mark.parametrize(
    ("document", "words"),
    [
        ({"x.o......": {"4": 0.5, "1": 0.4}}, "the entry for board 'x.o......': the AI's probabilities sum to 0.9"),
        ({"x.o......": {"0": 1}}, "the entry for board 'x.o......': the AI gave a probability to 0, a cell taken by x"),
        ({"x.o......": {"4": -0.5, "1": 1.5}}, "a negative probability"),
        ({"x.o......": {"4": "half"}}, "invalid input 'half': a probability is a number or a fraction"),
        # issue 58: a text whose exact value would be a number a million digits long is refused unread
        ({"x.o......": {"4": "1e-1000000", "8": "1"}}, "invalid input '1e-1000000'"),
        ({"x.o......": {"4": "1/" + "3" * 41, "8": "1"}}, "more than 40 digits"),
        ({"x.o......": {"4": "1/0"}}, "a division by zero"),
        ({"x.o......": {"z9": 1}}, "the entry for board 'x.o......'"),
        ({"oooxx....": [5]}, "the game is over there"),
        ({"oo.......": [3]}, "the entry for board 'oo.......'"),
        ({"o........": [4], "o../.../...": [5]}, "board 'o../.../...' is listed twice with different moves"),
        ({"x.o......": {}}, "moves are {move: probability}"),
        ({"policy": {}, "seed": 3}, "unknown key 'seed'"),
        ({"policy": {}, "symmetric": "yes"}, "symmetric is true or false"),
        ({"policy": {}, "first": "X"}, "first is o or x"),
        ({"policy": {"oo.x.....": [4]}, "first": "x"}, "the entry for board 'oo.x.....'"),
        ([["o........", [4]]], "a policy file holds a JSON object, not list"),
        (
            {"policy": {"o........": [4], "..o......": [6]}, "symmetric": True},
            "are images of each other by symmetry but their moves differ",
        ),
        ({"policy": {".........": [0]}, "symmetric": True}, "its own image by a symmetry its moves do not follow"),
    ],
)
def test_an_unusable_entry_is_refused_naming_it(tmp_path: Path, document: object, words: str) -> None:
    spec = _write(tmp_path, document)
    with pytest.raises(AILoadFailedError) as refused:
        load_ai(spec, game=TICTACTOE)
    assert words in str(refused.value) and f"AI {spec!r} failed to load" in str(refused.value)


def test_a_missing_file_another_games_file_and_bad_json_are_told_apart(tmp_path: Path) -> None:
    with pytest.raises(UnknownAIError, match="no policy file there"):
        load_ai(str(tmp_path / "absent.json"), game=TICTACTOE)
    other = _write(tmp_path, {"game": "4x4k4", "policy": {}})
    with pytest.raises(AINotForGameError, match="does not play 3x3k3: the file says it plays 4x4k4"):
        load_ai(other, game=TICTACTOE)
    (tmp_path / "broken.json").write_text("{'o........': [4]}")
    with pytest.raises(AILoadFailedError, match="cannot read it as JSON"):
        load_ai(str(tmp_path / "broken.json"), game=TICTACTOE)


def test_a_file_is_read_once_while_it_is_unchanged_and_its_reading_is_told(
    run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("ttt_db.ais.tabular.PROGRESS_ENTRIES", 2)
    entries = {"o........": [4], "x.o......": [1], "ox.......": [4], "........o": [4]}
    path = _write(tmp_path, entries)
    heard: list[tuple[int, int]] = []
    first = load_policy_file(path, TICTACTOE, lambda done, total: heard.append((done, total)))
    assert heard == [(0, 4), (2, 4), (4, 4)]
    assert load_policy_file(path, TICTACTOE, lambda done, total: heard.append((-done, total))) is first
    assert heard == [(0, 4), (2, 4), (4, 4)]  # not read again
    _write(tmp_path, {**entries, "....o....": [0]})
    changed = load_policy_file(path, TICTACTOE)
    assert changed is not first and policy_at(changed.play, "....o....") == {0: Fraction(1)}
    monkeypatch.setattr(LineBar, "LINE_SECONDS", 0.0)
    monkeypatch.setattr("sys.stderr.isatty", lambda: False)
    _write(tmp_path, {**entries, "....o....": [2]})
    scored = run("score", path)
    assert scored.exit_code == 0, scored.stderr
    assert f"reading {path}: 4/5 boards (80.0%)" in scored.stderr


def test_a_file_written_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps({"o........": [4]}).encode())
    assert policy_at(load_ai(str(path), game=TICTACTOE).play, "o........") == {4: Fraction(1)}


def test_a_symmetric_table_plays_each_image_alike(tmp_path: Path) -> None:
    spec = _write(tmp_path, {"symmetric": True, "policy": {"o........": {"4": 0.5, "8": 0.5}}})
    ai = load_ai(spec, game=TICTACTOE)
    assert ai.symmetric is True and ai.core_policy is not None
    assert policy_at(ai.play, "..o......") == {4: Fraction(1, 2), 6: Fraction(1, 2)}  # turned: o's corner is c1
    assert policy_at(ai.play, "........o") == {0: Fraction(1, 2), 4: Fraction(1, 2)}


def _reference_policy(table: dict[str, dict[int, Fraction]]):
    """The file's meaning, read independently of ttt-db: a listed board's odds, else every empty
    cell alike."""

    def policy(board: str) -> dict[int, Fraction]:
        if board in table:
            return table[board]
        moves = [cell for cell, mark in enumerate(board) if mark == "."]
        return dict.fromkeys(moves, Fraction(1, len(moves)))

    return policy


def _learner_table(db: SolutionDatabase, depths: range | None = None) -> dict[str, dict[int, Fraction]]:
    """A learner's table with a learner's faults: at the boards it met (of the levels `depths`, all
    by default) it prefers the first free cell (two thirds) over the last (one third), in whatever
    orientation it met them."""
    table = {}
    for index, position in enumerate(db.all_positions(depths)):
        if position.status == "playing" and index % 3 == 0:
            free = empty_cells(position.cells)
            table[position.cells] = (
                {free[0]: Fraction(2, 3), free[-1]: Fraction(1, 3)} if len(free) > 1 else {free[0]: Fraction(1)}
            )
    return table


def test_an_asymmetric_table_is_measured_board_by_board_exactly(db: SolutionDatabase, tmp_path: Path) -> None:
    table = _learner_table(db)
    spec = _write(
        tmp_path,
        {
            "game": "3x3k3",
            "policy": {board: {str(m): str(p) for m, p in odds.items()} for board, odds in table.items()},
        },
    )
    ai = load_ai(spec, game=db.game)
    assert ai.core_policy is None and ai.symmetric is False
    measures = measure_policy(ai, db)
    assert not measures.over_core and measures.exact
    expected = reference.policy_expectations(_reference_policy(table))
    for seat in ("o", "x"):
        for opponent in ("perfect", "best_response", "random"):
            assert measures.seats[seat].against[opponent].score == expected[seat][opponent]


def test_a_table_listing_every_image_alike_is_found_symmetric_and_measured_over_the_core(db: SolutionDatabase) -> None:
    table: dict[str, dict[int, Fraction]] = {}
    for position in db.all_positions():
        board = position.cells
        if position.status == "playing" and board.count(".") % 2:
            moves = [m for m in empty_cells(board) if board[8 - m] == "."]  # cells whose point reflection is free
            if moves and all(table.get(image) is None for image in symmetric_images(board, db.game)):
                for t, image in enumerate(symmetric_images(board, db.game)):
                    table[image] = {db.game.inverses[t][m]: Fraction(1, len(moves)) for m in moves}
    ai = table_ai(table, db.game)  # not said symmetric: every image is listed alike
    assert ai.symmetric is True and ai.core_policy is not None
    measures = measure_policy(ai, db)
    assert measures.over_core and measures.exact
    expected = reference.policy_expectations(_reference_policy(table))
    for seat in ("o", "x"):
        assert measures.seats[seat].against["best_response"].score == expected[seat]["best_response"]
        assert measures.seats[seat].against["random"].score == expected[seat]["random"]


def test_over_12_cells_a_symmetric_table_is_scored_over_the_core_and_an_asymmetric_one_needs_a_budget(
    run, tmp_path: Path
) -> None:
    game = Game.parse("2x7k3")
    path = tmp_path / "2x7k3.sqlite"
    build_database(path, game=game)
    with open_database(path, game=game) as db:
        learner = _learner_table(db, range(7))  # its first levels: asymmetric all the same, read at once
    symmetric = _write(tmp_path, {"symmetric": True, "policy": {"o" + "." * 13: [6, 7]}}, "symmetric.json")
    asymmetric = _write(
        tmp_path, {board: {str(m): str(p) for m, p in odds.items()} for board, odds in learner.items()}, "learner.json"
    )
    where = ["--game", "2x7k3", "--db", str(path)]
    scored = run("score", symmetric, "--json", *where)
    assert scored.exit_code == 0, scored.stderr
    document = json.loads(scored.stdout)
    assert document["over_core"] is True and document["arithmetic"] == "float64"
    random_play = json.loads(run("score", "ai2s", "--json", *where).stdout)
    ours, theirs = document["seats"]["x"]["against"]["perfect"], random_play["seats"]["x"]["against"]["perfect"]
    assert ours["score"] != theirs["score"]  # the table's reply to o's corner is not random play's
    refused = run("score", asymmetric, *where)
    assert refused.exit_code == 2 and "allows only within a budget" in refused.stderr
    bounded = run("score", asymmetric, "--max-boards", "40", "--json", *where)
    assert bounded.exit_code == 4 and json.loads(bounded.stdout)["stopped"] == "max_boards"


def test_the_web_never_reads_a_policy_file(
    db: SolutionDatabase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    from starlette.testclient import TestClient

    from ttt_db.web.app import create_app

    (tmp_path / "policy.json").write_text(json.dumps({"o........": [4]}))
    with TestClient(create_app(db)) as client:
        refused = client.get("/api/score", params={"ai": "policy.json"})
    assert refused.status_code == 400 and "run from the command line only" in refused.json()["error"]


def test_the_documented_policy_file_loads_as_it_says(tmp_path: Path) -> None:
    text = (Path(__file__).resolve().parent.parent / "docs" / "checks.md").read_text()
    example = text.split("**A policy from a file.**", 1)[1].split("```json", 1)[1].split("```", 1)[0]
    (tmp_path / "q_table.json").write_text(example)
    ai = load_ai(str(tmp_path / "q_table.json"), game=TICTACTOE)
    assert policy_at(ai.play, "x.o......") == {1: Fraction(2, 3), 4: Fraction(1, 3)}
    assert policy_at(ai.play, "ox.o.x...") == {2: Fraction(1, 2), 6: Fraction(1, 2)}


def test_a_q_learners_softmax_table_from_a_file_has_openspiels_exploitability(run, tmp_path: Path) -> None:
    """The table a learner writes, read from its file, measured exactly: OpenSpiel's `exploitability`
    of the same policy (tic-tac-toe's in the benchmark; here the 2x4 board with k=3)."""
    pytest.importorskip("pyspiel", reason="OpenSpiel is not installed: pip install 'ttt-db[openspiel]'")
    import math

    from open_spiel.python.algorithms import exploitability

    from ttt_db.ais.openspiel import spiel_game

    game = Game.parse("2x4k3")
    tabular, table = softmax_table(game, 1_000, seed=2)
    theirs = exploitability.exploitability(spiel_game(game), tabular)
    spec = _write(tmp_path, {"game": "2x4k3", "policy": table})
    where = ["--game", "2x4k3", "--db", str(tmp_path / "small.sqlite")]
    assert run("build", "--quiet", *where).exit_code == 0
    scored = run("score", spec, "--json", *where)
    assert scored.exit_code == 0, scored.stderr
    ours = json.loads(scored.stdout)["exploitability"]
    assert 0 < theirs < 1 and math.isclose(ours, theirs, rel_tol=1e-9)
    random_play = json.loads(run("score", "ai2s", "--json", *where).stdout)["exploitability"]
    assert abs(ours - random_play) > 1e-3  # the learner's table, not the random play it falls back on
