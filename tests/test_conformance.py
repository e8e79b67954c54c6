"""Conformance: every small m,n,k game, square and rectangular, held to the tests' reference
(tests/reference.py: plain recursion over every board, no symmetry, no arrays, sharing no code
with ttt_db) in one place, as OpenSpiel holds its games: the rules, the ranks, the level step on
both backends, the built database's counts, lookups, export and verify, the checks and the
commands. Other test files test one feature on tic-tac-toe; a new game goes in GAMES here."""

from __future__ import annotations

import io
import json
import random
from collections import Counter
from pathlib import Path

import pytest
import reference

from ttt_db.ais.registry import load_ai
from ttt_db.build.pipeline import build_database
from ttt_db.checks.report import run_checks
from ttt_db.errors import UnknownAIError
from ttt_db.game.definition import TICTACTOE, Game
from ttt_db.game.rules import status
from ttt_db.game.symmetry import symmetric_images
from ttt_db.outputs.export import write_jsonl
from ttt_db.ranked import backend
from ttt_db.ranked.codes import value_of_code
from ttt_db.ranked.layout import chunks_of_level
from ttt_db.ranked.slots import board_of_slot, level_slots, representative, slot_of
from ttt_db.ranked.step import solve_core
from ttt_db.ranked.tables import RankedTables
from ttt_db.search.evaluation import PATTERN, board_score, weighted_patterns
from ttt_db.store import extras as extras_module
from ttt_db.store.chunks import CHUNK_SLOTS
from ttt_db.store.database import open_database
from ttt_db.store.verify import verify_database

GAMES = ("3x3k3", "2x2k2", "2x3k2", "3x3k2", "1x4k2", "2x4k3", "1x5k3", "2x5k3", "3x4k3", "4x3k3")
"""Every small game the suite holds to the reference: a 9-cell square, rectangles, lines, 12 cells."""
BACKENDS = {"interpreted": backend.interpreted, "compiled": backend.compiled}
Solved = dict[str, tuple[int, int]]  # board -> (score from o's side, remoteness)


def rules_of(game: Game) -> reference.Rules:
    return reference.Rules(game.rows, game.columns, game.k)


def brute_force(game: Game) -> Solved:
    """Every board reachable from the empty one, solved by the tests' reference."""
    rules = rules_of(game)
    solve = reference.solver(rules)
    solve(rules.empty)
    return {board: (solved.score, solved.remoteness) for board, solved in solve.solved.items()}


@pytest.fixture(scope="module", params=GAMES)
def built(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Game, Path, Solved]:
    game = Game.parse(request.param)
    path = tmp_path_factory.mktemp(game.name) / "db.sqlite"
    build_database(path, game=game)
    return game, path, brute_force(game)


def test_counts_match_the_brute_force(built: tuple[Game, Path, Solved]) -> None:
    game, path, solved = built
    by_depth = Counter(game.cells - board.count(".") for board in solved)
    classes = {min(symmetric_images(board, game)) for board in solved}
    with open_database(path, game=game) as db:
        figures = db.meta()["figures"]
        depths = db.depth_figures()
        assert db.node_list("all") == sorted(solved, key=lambda b: (game.cells - b.count("."), game.key(b)))
    assert figures["positions"] == len(solved)
    assert figures["canonical_positions"] == len(classes)
    assert [d.positions for d in depths] == [by_depth[d] for d in sorted(by_depth)]
    empty_score, empty_remoteness = solved["." * game.cells]
    value = {1: "win", 0: "draw", -1: "loss"}[empty_score]
    assert figures["empty_board"] == {"value": value, "remoteness": empty_remoteness}
    with open_database(path, game=game) as db:
        assert db.empty_board_value == value


def test_the_export_holds_every_position_as_the_reference_derives_it(built: tuple[Game, Path, Solved]) -> None:
    """Every record of `export` (every reachable board, o first) equal, field by field, to the
    record the tests' reference derives: the solution, the random-play odds, paths and symmetry."""
    game, path, _ = built
    if game.cells > 9:
        pytest.skip("the 12-cell games' whole exports are compared in the benchmark; the suite stays fast")
    rules = rules_of(game)
    paths_to = reference.paths(rules)
    stream = io.StringIO()
    with open_database(path, game=game) as db:
        write_jsonl(db.all_positions(), stream)
    records = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert len(records) == len(paths_to)
    for record in records:
        expected = reference.export_record(record["board"], rules, paths_to)
        assert {key: record[key] for key in expected} == expected, record["board"]


def test_every_board_and_its_images_answer_as_the_brute_force(built: tuple[Game, Path, Solved]) -> None:
    game, path, solved = built
    boards = random.Random(3).sample(sorted(solved), min(1500, len(solved)))
    with open_database(path, game=game) as db:
        for board in boards:
            score, remoteness = solved[board]
            position = db.lookup(board)
            assert (position.score, position.remoteness) == (score, remoteness), board
            if position.status == "playing":
                assert position.best_moves == reference.best_moves(board, rules_of(game)), board


@pytest.mark.parametrize("shortest", [False, True], ids=["best", "fastest"])
def test_the_best_moves_read_from_the_rows_are_the_cores_and_the_references(
    built: tuple[Game, Path, Solved], shortest: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 56, item 5: read pinned, a small game's lookup AIs answer from its plain rows, every
    board's moves made at once; on every board in play they are the moves the core derives, and
    the best ones are the reference's."""
    game, path, solved = built
    with open_database(path, game=game, recorded=False) as unpinned:
        playing = unpinned.node_list("playing")
        from_core = unpinned.best_moves_table(shortest=shortest)
        derived = [from_core[board] for board in playing]
    monkeypatch.setattr(backend, "runs_interpreted", lambda slots: True)  # the 12-cell games read rows too
    with open_database(path, game=game) as pinned:
        assert pinned.reads_plain_rows
        from_rows = pinned.best_moves_table(shortest=shortest)
        assert dict(from_rows) == dict(from_core)
        assert [from_rows[board] for board in playing] == derived
    if not shortest:
        for board in playing[:: max(1, len(playing) // 2000)]:
            mover = "o" if board.count("o") == board.count("x") else "x"
            sign = 1 if mover == "o" else -1
            scores = {
                cell: sign * solved[board[:cell] + mover + board[cell + 1 :]][0]
                for cell, mark in enumerate(board)
                if mark == "."
            }
            assert from_rows[board] == tuple(cell for cell, score in scores.items() if score == max(scores.values()))


def test_a_small_game_verifies(built: tuple[Game, Path, Solved]) -> None:
    game, path, solved = built
    if len(solved) > 10_000:
        pytest.skip("verify of the 12-cell games runs in the benchmark; the suite stays fast")
    with open_database(path, game=game) as db:
        report = verify_database(db)
    assert report.ok, report.problems


def test_known_values() -> None:
    """2x2k2: the first player wins with its second move, three plies in all."""
    assert brute_force(Game.parse("2x2k2"))["...."] == (1, 3)


def test_sampled_boards_answer_as_the_reference_in_every_orientation(built: tuple[Game, Path, Solved]) -> None:
    game, path, solved = built
    rules = rules_of(game)
    boards = random.Random(7).sample(sorted(solved), min(50, len(solved)))
    with open_database(path, game=game) as db:
        for board in boards:
            for image in rules.images(board):
                position = db.lookup(image)
                assert (position.score, position.remoteness) == solved[image], image
                if position.status == "playing":
                    assert position.best_moves == reference.best_moves(image, rules), image


def test_the_wrong_board_size_and_game_are_refused(run, built: tuple[Game, Path, Solved]) -> None:
    game, path, _ = built
    if game == TICTACTOE:
        pytest.skip("the default game's database is refused no other game's (tests/test_cli.py says its words)")
    wrong = "." * (game.cells + 1)
    result = run("best-moves", "--game", game.name, "--db", str(path), wrong)
    assert result.exit_code == 2
    assert f"expected {game.cells} cells for {game}, got {game.cells + 1}" in result.stderr
    other = run("best-moves", "--game", "3x3k3", "--db", str(path), ".........")
    assert other.exit_code == 2 and f"solves {game}, not 3x3k3" in other.stderr
    own = run("best-moves", "--db", str(path), "--json", game.empty_board)  # the file's own game
    assert own.exit_code == 0, own.stderr
    assert json.loads(own.stdout)["game"] == game.name


def test_the_search_ais_play_the_brute_force_best_moves(built: tuple[Game, Path, Solved]) -> None:
    game, _, solved = built
    playing = sorted(board for board, (score, remoteness) in solved.items() if remoteness > 0)
    sample = random.Random(3).sample(playing, min(40, len(playing)))
    if game.cells > 9:  # a full search from an early board of a 12-cell game takes seconds
        sample = [board for board in sample if board.count(".") <= 7]
    minimax, alphabeta = load_ai("minimax-tt", game=game).play, load_ai("alphabeta", game=game).play
    for board in sample:
        expected = reference.best_moves(board, rules_of(game))
        assert minimax(board) == expected, board
        assert alphabeta(board) == expected, board


def test_perfect_is_solved_and_the_strong_check_counts_every_decision_position(
    built: tuple[Game, Path, Solved],
) -> None:
    game, path, _ = built
    with open_database(path, game=game) as db:
        report = run_checks(load_ai("perfect", lambda: db, game), db)
        assert report.solved and report.weak is not None and report.strong is not None
        assert report.strong.total == len(db.node_list("decision"))
        assert report.strong.asked == len(db.node_list("decision_canonical"))


@pytest.mark.parametrize("name", ["ai2s", "dls@1", "abdls@1"])
def test_asking_once_per_symmetry_class_gives_the_full_check(built: tuple[Game, Path, Solved], name: str) -> None:
    game, path, _ = built
    if game.cells > 9:
        pytest.skip("a 12-cell game's full check asks 60,000 boards; the 9-cell games show the same")
    with open_database(path, game=game) as db:
        ai = load_ai(name, lambda: db, game)
        full = reference.check_strong(ai.play, db.node_list("decision"), db.best_moves_table())
        by_orbit = run_checks(ai, db, weak=False).strong  # asked once per class
    assert by_orbit is not None and by_orbit.asked == len(db.node_list("decision_canonical"))
    assert (by_orbit.correct, by_orbit.total) == (full.correct, full.total)
    assert [(f.board, f.chosen, f.best) for f in by_orbit.failures] == [
        (f.board, f.chosen, f.best) for f in full.failures
    ]


def test_ai14s_is_refused_off_3x3_and_depths_follow_the_board() -> None:
    game = Game.parse("3x4k3")
    with pytest.raises(UnknownAIError, match="a rule set for 3x3k3 .tic-tac-toe., not for 3x4k3"):
        load_ai("ai14s", game=game)
    with pytest.raises(UnknownAIError, match="dls needs a depth from 0 to 12"):
        load_ai("dls@13", game=game)
    assert load_ai("abdls@12", game=game).play("oxoxxoxo....")  # the full depth accepted, on a short game


def test_the_line_score_generalises_to_k_long_lines() -> None:
    possible = [(mine, theirs) for mine in range(4) for theirs in range(4 - mine)]
    assert [weighted_patterns(3)[m][t] for m, t in possible] == [(PATTERN[m][t], 1) for m, t in possible]
    four = Game.parse("4x4k4")
    # a threat on row 1 (4), open lines b, c and the diagonal (1 each), x's open a2 and a3 rows (-2 each)
    assert board_score("ooo.x...x.......", "o", four) == 4 + 3 - 2 * 2
    # two o on an open row of four weigh 2, not a threat; on 3x3 the same two are a threat (4)
    assert board_score("oo.." + "." * 12, "o", four) == 2 + 3
    assert board_score("oo.......", "o", TICTACTOE) == 4 + 3


def test_commands_on_a_small_game(run, built: tuple[Game, Path, Solved], tmp_path: Path) -> None:
    game, path, _ = built
    if game == TICTACTOE:
        pytest.skip("the commands on tic-tac-toe, the default game, are tests/test_cli.py's")
    if game.cells > 9:
        pytest.skip("the commands on the 12-cell games run in the benchmark")
    where = ("--game", game.name, "--db", str(path))
    assert run("check", "perfect", *where).exit_code == 0
    match = run("match", "perfect", "ai2s", "-n", "20", "--seed", "1", *where)
    assert match.exit_code == 0 and f"perfect vs ai2s: 20 games of {game.name} with perfect as o" in match.stdout
    searched = run("search", "alphabeta", *where, "--trace", str(tmp_path / "t.jsonl"))
    assert searched.exit_code == 0 and searched.stdout.rstrip().endswith(": agrees")
    assert run("check-trace", str(tmp_path / "t.jsonl"), *where).exit_code == 0
    refused = run("check-trace", str(tmp_path / "t.jsonl"))
    assert refused.exit_code == 2 and f"the trace is of game '{game.name}'; check it with --game" in refused.stderr
    refused_ai = run("check", "ai14s", *where)
    assert refused_ai.exit_code == 2 and f"not for {game.name}" in refused_ai.stderr
    played = run("play", *where, "--as", "x", input="quit\n")
    assert played.exit_code == 0 and f"index 0-{game.cells - 1}" in played.stdout


def _reference_value(board: str, rules: reference.Rules) -> tuple[str, int]:
    """The side to move's value and the remoteness, from the reference solver."""
    solved = reference.solver(rules)(board)
    sign = 1 if rules.mover(board) == "o" else -1
    finished = rules.finished(board)
    value = sign * solved.score if not finished else (-1 if rules.winner(board) else 0)
    return ("loss", "draw", "win")[value + 1], solved.remoteness


@pytest.mark.parametrize("name", GAMES)
def test_the_rules_end_every_game_as_the_reference_does(name: str) -> None:
    game = Game.parse(name)
    rules = rules_of(game)
    for board in reference.reachable(rules):
        expected = rules.winner(board) or ("draw" if "." not in board else "playing")
        assert status(board, game) == expected, board


@pytest.mark.parametrize("name", GAMES)
def test_slots_number_each_level_without_gaps_and_round_trip(name: str) -> None:
    game = Game.parse(name)
    for depth in range(game.cells + 1):
        boards = [board_of_slot(game, depth, slot) for slot in range(level_slots(game.cells, depth))]
        assert [slot_of(board) for board in boards] == [(depth, slot) for slot in range(len(boards))]
        assert len(set(boards)) == len(boards)
        assert all(board.count("o") == (depth + 1) // 2 and board.count("x") == depth // 2 for board in boards)


@pytest.mark.parametrize("kernel", BACKENDS)
@pytest.mark.parametrize("name", GAMES)
def test_the_level_step_gives_every_class_the_reference_value_at_its_representative(name: str, kernel: str) -> None:
    """The level step over canonical sets, interpreted and compiled: every reachable board's class
    holds the reference solver's value at its representative (the least slot of its images), every
    class is counted once with its orbit, and no other stored slot holds a code."""
    game = Game.parse(name)
    rules = rules_of(game)
    tables = RankedTables(game, BACKENDS[kernel]())
    solved = {level.depth: (level, counts) for level, counts in solve_core(tables)}
    stored = {
        depth: b"".join(
            bytes(chunk or bytes(min(CHUNK_SLOTS, level_slots(game.cells, depth) - n * CHUNK_SLOTS)))
            for n, chunk in chunks_of_level(tables, level, CHUNK_SLOTS)
        )
        for depth, (level, _) in solved.items()
    }
    boards = reference.reachable(rules)
    classes: dict[int, set[int]] = {}
    for board in boards:
        depth, slot, _ = representative(board, game)
        assert slot == min(slot_of(image)[1] for image in rules.images(board)), board
        classes.setdefault(depth, set()).add(slot)
        assert value_of_code(stored[depth][slot]) == _reference_value(board, rules), board
    for depth, (_, counts) in solved.items():
        reached = [board for board in boards if game.cells - board.count(".") == depth]
        assert counts.positions == len(reached), depth
        assert counts.canonical == len({min(rules.images(board)) for board in reached}), depth
        assert {slot for slot, code in enumerate(stored[depth]) if code} == classes.get(depth, set()), depth


def test_the_interpreted_and_the_compiled_kernels_agree_level_by_level() -> None:
    game = Game.parse("3x4k3")
    levels = [
        [(bytes(level.codes), counts) for level, counts in solve_core(RankedTables(game, make()))]
        for make in BACKENDS.values()
    ]
    assert levels[0] == levels[1]


@pytest.mark.parametrize("name", GAMES)
def test_the_weak_check_of_the_database_ais_over_the_core_visits_what_the_search_visits(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Forward in arrays from the empty board, with and without extras, the weak check of perfect
    and perfect-shortest reaches exactly the boards the depth-first search of
    ttt_db.checks.weak examines (o wins 3x4k3: as x there is nothing to prove). The search asks the
    AI read pinned (a small game's answers from its plain rows); the walk's handle is not pinned, as
    a pinned small game's check is the search itself."""
    from ttt_db.ais.registry import load_ai
    from ttt_db.checks.report import run_checks
    from ttt_db.checks.weak import check_weak

    game = Game.parse(name)
    build_database(tmp_path / "extras.sqlite", game=game)
    monkeypatch.setattr(extras_module, "EXTRAS_MAX_CELLS", 8)
    build_database(tmp_path / "core.sqlite", game=game)
    for ai in ("perfect", "perfect-shortest"):
        for path, cells in ((tmp_path / "extras.sqlite", 16), (tmp_path / "core.sqlite", 8)):
            monkeypatch.setattr(extras_module, "EXTRAS_MAX_CELLS", cells)
            with open_database(path) as database, open_database(path, recorded=False) as walked:
                named = load_ai(ai, lambda database=database: database, game)
                searched = check_weak(named.play, game, database.empty_board_value).to_dict()
                named = load_ai(ai, lambda walked=walked: walked, game)
                found = run_checks(named, walked, strong=False).to_document()["weak"]
            del found["o"]["mistake"], found["x"]["mistake"]
            assert found == searched and found["o"]["visited"] > 0
