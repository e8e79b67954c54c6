"""Solve checks: verdicts, counterexamples, misbehaving AIs, and the `check` command."""

from __future__ import annotations

import json
from collections.abc import Callable, Collection
from dataclasses import replace
from pathlib import Path

import pytest
import reference

from ttt_db.ais.registry import load_ai
from ttt_db.checks.report import run_checks
from ttt_db.checks.strong import StrongFailure
from ttt_db.checks.weak import check_weak
from ttt_db.game.definition import TICTACTOE
from ttt_db.game.rules import Value, replay, side_to_move, status
from ttt_db.position import MoveAnalysis
from ttt_db.store import published
from ttt_db.store.database import SolutionDatabase

RULES = reference.TICTACTOE


def _report(name: str, db: SolutionDatabase, **options: bool):
    return run_checks(load_ai(name, lambda: db), db, **options)


@pytest.mark.parametrize("name", ["perfect", "perfect-shortest"])
def test_the_database_is_solved_both_ways(db: SolutionDatabase, name: str) -> None:
    report = _report(name, db)
    assert report.solved
    decision, canonical_decision = published.LIST_SIZES["decision"], published.LIST_SIZES["decision_canonical"]
    assert report.strong is not None and (report.strong.correct, report.strong.total) == (decision, decision)
    canonical = _report(name, db, weak=False, canonical=True)
    assert canonical.strong is not None
    assert (canonical.strong.correct, canonical.strong.total) == (canonical_decision, canonical_decision)


def test_shortest_check_tells_the_two_lookups_apart(db: SolutionDatabase) -> None:
    assert _report("perfect-shortest", db, weak=False, shortest=True).solved
    plain = _report("perfect", db, weak=False, shortest=True)
    assert plain.strong is not None and not plain.solved and plain.strong.correct < plain.strong.total


def test_ai2s_is_neither_and_its_counterexample_replays(db: SolutionDatabase) -> None:
    report = _report("ai2s", db)
    assert report.strong is not None and report.strong.correct == 0
    assert report.weak is not None and not report.weak.o.solved and not report.weak.x.solved
    for side in (report.weak.o, report.weak.x):
        example = side.counterexample
        assert example is not None and example.error is None
        boards = replay(example.moves, TICTACTOE)
        assert boards[-1] == example.board
        assert status(example.board, TICTACTOE) == ("x" if side.side == "o" else "o")  # the AI lost
        assert all(status(b, TICTACTOE) == "playing" for b in boards[:-1])
        ai_parity = 0 if side.side == "o" else 1
        for ply, move in enumerate(example.moves):
            if ply % 2 == ai_parity:  # every AI move was among its candidates
                assert move in load_ai("ai2s").play(boards[ply])
        assert side.side in report.mistakes


def test_ai1s_is_not_weakly_solved(db: SolutionDatabase) -> None:
    report = _report("ai1s", db, strong=False)
    assert report.weak is not None and not report.weak.solved


def _boards_reachable_with(ai: Callable[[str], Collection[int]], side: str) -> int:
    """Distinct boards, finished ones included, that games reach with the AI playing `side`
    (any of its candidates) and the opponent any move: what a weak check that finds no loss examines."""
    rules = reference.TICTACTOE
    seen = {rules.empty}
    stack = [rules.empty]
    while stack:
        board = stack.pop()
        mine = rules.mover(board) == side
        for move, child in rules.children(board):
            if (not mine or move in ai(board)) and child not in seen:
                seen.add(child)
                stack.append(child)
    return len(seen)


def test_ai14s_is_weakly_but_not_strongly_solved(db: SolutionDatabase) -> None:
    report = _report("ai14s", db)
    assert report.weak is not None and report.weak.solved
    ai14s = load_ai("ai14s").play
    expected = (_boards_reachable_with(ai14s, "o"), _boards_reachable_with(ai14s, "x"))
    assert (report.weak.o.visited, report.weak.x.visited) == expected
    expected = reference.strong_check_of(load_ai("ai14s").play)
    assert report.strong is not None and (report.strong.correct, report.strong.total) == (
        expected.correct,
        expected.total,
    )
    canonical_boards = {
        failure.board for failure in expected.failures if failure.board == min(RULES.images(failure.board))
    }
    canonical = _report("ai14s", db, weak=False, canonical=True)
    assert canonical.strong is not None
    assert canonical.strong.total - canonical.strong.correct == len(canonical_boards)
    assert canonical.strong.total == published.LIST_SIZES["decision_canonical"]
    failure = report.strong.failures[0]
    assert not set(failure.chosen) <= set(failure.best)


@pytest.mark.parametrize("name", ["ai14s", "dls@2"])
def test_the_strong_check_by_orbit_fails_the_same_boards_as_the_full_check(db: SolutionDatabase, name: str) -> None:
    asked: list[str] = []
    ai = load_ai(name)

    def counted(board: str) -> tuple[int, ...]:
        asked.append(board)
        return tuple(ai.play(board))

    by_orbit = run_checks(replace(ai, play=counted), db, weak=False).strong
    full = reference.check_strong(ai.play, db.node_list("decision"), db.best_moves_table())
    assert by_orbit is not None and len(asked) == by_orbit.asked == 431
    assert (by_orbit.correct, by_orbit.total) == (full.correct, full.total)
    assert [(f.board, f.chosen, f.best) for f in by_orbit.failures] == [
        (f.board, f.chosen, f.best) for f in full.failures
    ]


def test_dls3_is_not_weakly_solved(db: SolutionDatabase) -> None:
    report = _report("dls@3", db, strong=False)
    assert report.weak is not None and not report.weak.solved


def test_the_weak_search_skips_boards_it_has_examined() -> None:
    # every board reachable with ai2s as o, until the first loss, is examined once
    perfect_like = check_weak(lambda board: [i for i in range(9) if board[i] == "."], TICTACTOE, "draw")
    # depth-first in index order; o's first loss (x completing the middle column) ends it at 37
    assert (perfect_like.o.visited, perfect_like.x.visited) == (37, 8)
    assert perfect_like.o.counterexample is not None and perfect_like.x.counterexample is not None
    assert perfect_like.o.counterexample.moves == (0, 1, 2, 3, 5, 4, 6, 7)
    assert perfect_like.x.counterexample.moves == (0, 1, 2, 3, 4, 5, 6)


MISBEHAVING = {
    "off_board": ("return [9]", "the AI answered 9, off the board (cells are 0-8)"),
    "occupied": ("return [i for i in range(9) if board[i] != '.'][:1] or [0]", "a cell taken by"),
    "empty": ("return []", "the AI answered no move"),
    "raises": ("raise RuntimeError('confused')", "the AI raised RuntimeError: confused"),
    "not_moves": ("return ['a1']", "the AI answered 'a1', not a cell index"),
    "not_collection": ("return 4", "the AI answered 4, one move, not a collection of moves: return a list, e.g. [4]"),
    "one_numpy_move": (  # an argmax's answer
        "return __import__('numpy').int64(4)",
        "the AI answered 4, one move, not a collection of moves: return a list, e.g. [4]",
    ),
}


@pytest.fixture
def user_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    source = ["def first_empty(board):", "    '''The first empty cell.'''", "    return [board.index('.')]", ""]
    for name, (body, _) in MISBEHAVING.items():
        source += [f"def {name}(board):", f"    {body}", ""]
    (tmp_path / "my_bots.py").write_text("\n".join(source))
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return "my_bots"


def test_a_user_ai_from_a_directory_is_checked(db: SolutionDatabase, user_module: str) -> None:
    user = _report(f"{user_module}:first_empty", db)
    builtin = _report("ai1s", db)
    assert user.to_document() | {"ai": "ai1s"} == builtin.to_document()


@pytest.mark.parametrize("kind", list(MISBEHAVING))
def test_misbehaviour_is_reported_with_its_board(db: SolutionDatabase, user_module: str, kind: str) -> None:
    report = _report(f"{user_module}:{kind}", db)
    expected = MISBEHAVING[kind][1]
    assert report.strong is not None and report.strong.correct == 0
    failure = report.strong.failures[0]
    assert failure.board == db.node_list("decision")[0]
    assert failure.error is not None and expected in failure.error
    where = f" (at {failure.where})" if failure.where else ""
    assert failure.text.startswith(f"{side_to_move(failure.board)} to move: {failure.error}{where}; best: ")
    assert report.weak is not None
    example = report.weak.o.counterexample
    assert example is not None and expected in (example.error or "")
    if kind == "occupied":  # legal on the empty board; taken cell a1 once o holds it
        assert (example.moves, example.board) == ((0, 1), "ox.......")
    else:
        assert (example.moves, example.board) == ((), ".........")


def test_check_command_exit_codes_and_json(run) -> None:
    solved = run("check", "perfect", "--json")
    assert solved.exit_code == 0
    document = json.loads(solved.stdout)
    assert set(document) == {"ai", "game", "solved", "weak", "strong"}
    assert set(document["weak"]) == {"solved", "o", "x", "visited", "counterexample"}
    assert set(document["strong"]) >= {"solved", "correct", "total", "positions", "failures"}
    assert document["weak"]["counterexample"] is None
    assert document["weak"]["visited"] == document["weak"]["o"]["visited"] + document["weak"]["x"]["visited"]

    weak_only = run("check", "ai14s", "--weak", "--json")
    assert weak_only.exit_code == 0
    assert "strong" not in json.loads(weak_only.stdout)

    failed = run("check", "ai14s", "--strong")
    assert failed.exit_code == 1
    assert "strong:      NOT solved (3,139/3,191 decision positions play only best moves)" in failed.stdout
    assert "  failures, shallowest first (10 of 52; --show N for more):" in failed.stdout

    lost = json.loads(run("check", "ai2s", "--weak", "--json").stdout)
    assert lost["weak"]["counterexample"]["side"] == "o"
    assert lost["weak"]["counterexample"]["moves"] == lost["weak"]["o"]["counterexample"]["moves"]


def test_check_command_text(run) -> None:
    result = run("check", "ai1s", "--canonical", "--strong", "--show", "0")
    assert result.exit_code == 1
    assert "valid just for AIs that treat symmetric boards alike" in result.stdout
    assert "warning: this AI does not treat symmetric boards alike" in result.stdout
    weak = run("check", "ai2s", "--weak").stdout
    assert "counterexample, 8 moves from the empty board, the AI playing o:" in weak
    assert "its decisive mistake, move " in weak and " would have kept a draw or better\n" in weak


def test_check_command_bad_input(run) -> None:
    unknown = run("check", "ai15s")
    assert unknown.exit_code == 2
    assert unknown.stderr == (
        "error: unknown AI 'ai15s': no built-in AI has that name; `ttt-db ais` lists them (did you mean ai1s, ai14s?)\n"
    )
    missing = run("check", "nowhere_module:play")
    assert missing.exit_code == 2 and "cannot import module 'nowhere_module'" in missing.stderr
    neither = run("check")
    assert neither.exit_code == 2 and "give an AI to check (see `ttt-db ais`), or --all" in neither.stderr


def test_check_all(run, monkeypatch, db) -> None:
    from ttt_db.ais.registry import DEFAULT_INSTANCES

    # iddfs@0.01's answers depend on the machine's speed (a wall-clock limit per move): left out here
    monkeypatch.setattr(
        "ttt_db.ais.registry.DEFAULT_INSTANCES", tuple(n for n in DEFAULT_INSTANCES if n != "iddfs@0.01")
    )
    result = run("check", "--all", "--json")
    assert result.exit_code == 0
    rows = {
        r["ai"]: (r["weak"]["o"]["solved"], r["weak"]["x"]["solved"], r["strong"]["correct"])
        for r in json.loads(result.stdout)
    }
    weak = {"ai1s": False, "ai2s": False, "dls@3": False}  # the AIs that lose a game from the start
    assert rows == {
        name: (
            weak.get(name, True),
            weak.get(name, True),
            reference.strong_check_of(load_ai(name, lambda: db).play).correct,
        )
        for name in rows
    }
    assert set(rows) == {name for name in DEFAULT_INSTANCES if name != "iddfs@0.01"}


def test_ais_command(run) -> None:
    lines = run("ais").stdout.splitlines()
    assert lines[0].startswith("ai1s ")
    assert any(line.startswith("perfect-shortest ") for line in lines)
    assert lines[-1].startswith("module:function")


def test_a_strong_failure_tells_moves_of_one_outcome_together() -> None:
    def analysis(move: int, value: Value, plies_after: int) -> MoveAnalysis:
        return MoveAnalysis(move, value, plies_after, TICTACTOE)

    moves = (analysis(0, "loss", 5), analysis(1, "draw", 7), analysis(2, "loss", 3), analysis(4, "draw", 7))
    failure = StrongFailure(".......o.", chosen=(0, 2), best=(1, 4), moves=moves)
    assert failure.text == (
        "x to move may play 0 (a1), which loses in 6, or 2 (c1), which loses in 4; best: 1 (b1) or 4 (b2), which draw"
    )
    assert failure.to_dict()["text"] == failure.text
    unnamed = StrongFailure(".......o.", chosen=(3,), best=(1,), moves=moves)
    assert unnamed.text == "x to move may play 3; best: 1 (b1), which draws"


def test_the_weak_check_reads_a_small_games_answers_at_once_and_finds_what_asking_finds(
    db: SolutionDatabase, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("perfect", "perfect-shortest"):
        perfect = load_ai(name, lambda: db).play
        asked = check_weak(lambda board, perfect=perfect: perfect(board), TICTACTOE, "draw")
        assert asked.solved and asked.o.visited > 0
        with monkeypatch.context() as patched:
            patched.setattr(SolutionDatabase, "best_moves_of", lambda *_, **__: pytest.fail("asked board by board"))
            assert check_weak(perfect, TICTACTOE, "draw") == asked
