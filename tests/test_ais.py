"""The built-in AIs: the rules of ai14s, and the search AIs against the stored solution."""

from __future__ import annotations

import sys
from fractions import Fraction
from pathlib import Path

import pytest
import reference

from ttt_db.ais.registry import BUILTIN_AIS, ai1s, ai2s, load_ai, parse_probability
from ttt_db.ais.rule_based import ai14s
from ttt_db.ais.searching import IterativeDeepening
from ttt_db.errors import AIUnusableError, UnknownAIError, UnknownAlgorithmError
from ttt_db.game.definition import TICTACTOE
from ttt_db.position import Position
from ttt_db.search.algorithms import parse_algorithm, run_search
from ttt_db.search.evaluation import board_score
from ttt_db.store.database import SolutionDatabase, open_database


def test_ai1s_and_ai2s() -> None:
    assert ai1s("ox.......") == (2,)
    assert ai2s("ox..x....") == (2, 3, 5, 6, 7, 8)


@pytest.mark.parametrize(
    ("board", "me", "doubled_score"),
    [
        ("ooo.xx...", "o", 600),  # 1: three in a row
        ("oo.xo...x", "o", 400),  # 2: two threats (top row, middle column), none against
        ("o..xx...o", "x", 200),  # 3: x centre, o on a1 and c3, x on edge a2, 4 marks
        ("o.x.x...o", "x", 2),  # not 3: x holds no edge; 2 for one threat + 0.5 + 0.5 - 1 - 1
        ("oo..x.x..", "x", -194),  # d = 1: -100 + 2 + 2 * 0.5
        ("oxo.x....", "x", 1),  # 2 + 0.5 - 1 - 1
        ("oo.xx.o..", "o", -195),  # -100 + 2 + 0.5
    ],
)
def test_ai14s_board_score(board: str, me: str, doubled_score: int) -> None:
    assert board_score(board, me, TICTACTOE) == doubled_score  # type: ignore[arg-type]


def test_ai14s_choices() -> None:
    assert ai14s(".........") == (4,)  # the centre lies on 4 lines
    assert ai14s("oo..x.x..") == (2,)  # block the top row
    assert ai14s("oo.xx....") == (2,)  # winning beats blocking


def _playing(positions: dict[str, Position]) -> list[Position]:
    return [p for p in positions.values() if p.status == "playing"]


@pytest.mark.parametrize(
    ("make", "shortest"),
    [
        (lambda: load_ai("minimax-tt").play, False),
        (lambda: load_ai("alphabeta").play, False),
        (lambda: load_ai("minimax-tt-shortest").play, True),
        (lambda: load_ai("alphabeta-shortest").play, True),
    ],
)
def test_full_searches_agree_with_the_database(positions: dict[str, Position], make, shortest: bool) -> None:
    ai = make()
    for p in _playing(positions):
        assert ai(p.cells) == (p.best_moves_shortest if shortest else p.best_moves), p.cells


def test_alphabeta_table_holds_true_bounds_for_every_symmetric_image() -> None:
    ai = load_ai("alphabeta").play
    ai(".........")
    table = ai.engine.table
    solve = reference.solver()
    assert table and all(lower <= solve(board).score <= upper for board, (lower, upper) in table.items())
    for board in list(table)[:50]:
        assert all(table[image] == table[board] for image in reference.TICTACTOE.images(board))


def test_abdls_at_depth_0_is_ai14s(positions: dict[str, Position]) -> None:
    abdls0 = load_ai("abdls@0").play
    for p in _playing(positions):
        assert abdls0(p.cells) == ai14s(p.cells), p.cells


def test_deep_depth_limited_searches_play_perfectly(positions: dict[str, Position]) -> None:
    deep = load_ai("dls@8").play
    for p in _playing(positions):
        if p.depth >= 4:
            best = set(p.best_moves)
            assert set(deep(p.cells)) <= best, p.cells


def test_dls_sees_only_its_horizon() -> None:
    # x to move must block c1; dls@0 sees no loss one ply below its move and plays anything
    board = "oo..x...."
    assert load_ai("dls@0").play(board) == (2, 3, 5, 6, 7, 8)
    assert load_ai("dls@1").play(board) == (2,)


class TickingClock:
    """A clock that moves one second each time it is read: a search's progress in clock reads
    is the same on every machine."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def test_iddfs_answers_from_the_deepest_completed_iteration() -> None:
    board = "oo..x...."
    stopped = TickingClock()
    assert IterativeDeepening(0.5, clock=stopped, game=TICTACTOE)(board) == (2, 3, 5, 6, 7, 8)  # none completed
    frozen = IterativeDeepening(1.0, clock=lambda: 0.0, game=TICTACTOE)  # time never passes: every depth completes
    assert frozen(board) == load_ai(f"abdls@{board.count('.') - 1}").play(board) == (2,)
    # abdls@0 on this board reads the clock once per node: 1 (start) + 7 reads fit in 8 seconds
    nodes_at_depth_0 = 1 + len([i for i in range(9) if board[i] == "."])
    shallow = IterativeDeepening(float(nodes_at_depth_0) + 0.5, clock=TickingClock(), game=TICTACTOE)
    assert shallow(board) == load_ai("abdls@0").play(board)


def test_registry_names_and_lookups(db: SolutionDatabase) -> None:
    names = [ai.name for ai in BUILTIN_AIS]
    assert {
        "ai1s",
        "ai2s",
        "ai14s",
        "perfect",
        "perfect-shortest",
        "minimax-tt",
        "alphabeta",
        "dls@N",
        "abdls@N",
        "iddfs@SECONDS",
    } <= set(names)
    perfect = load_ai("perfect", lambda: db)
    assert perfect.play("ox.......") == db.lookup("ox.......").best_moves
    assert load_ai("dls@3").play("oo..x....") == (2,)
    assert load_ai("iddfs@0.5").name == "iddfs@0.5"


def test_perfect_on_a_large_game_reads_rows_until_the_table_is_read(db_path, monkeypatch) -> None:
    import ttt_db.store.database

    monkeypatch.setattr(ttt_db.store.database, "_SMALL_TABLE_ROWS", 0)  # as on 4x4: 1.1 million rows in play
    with open_database(db_path) as fresh:
        perfect = load_ai("perfect-shortest", lambda: fresh).play
        boards = ["ox.......", "......o.x", "oxo.x...."]
        by_row = [perfect(board) for board in boards]
        assert not fresh._best_moves_tables  # no table read for three answers
        table = fresh.best_moves_table(shortest=True)
        assert by_row == [table[board] for board in boards] == [perfect(board) for board in boards]


def test_perfect_answers_a_board_x_moved_first_on_and_says_what_is_wrong_with_a_bad_one(db: SolutionDatabase) -> None:
    """The AI protocol's boards are o first; one typed by hand with x first is answered as the
    lookup answers it, and a malformed or impossible one gets the board's own error, never
    "the database is damaged"."""
    from ttt_db.errors import ImpossibleBoardError, InvalidBoardError

    perfect = load_ai("perfect", lambda: db).play
    for board in ("x........", "xo..x...."):
        assert perfect(board) == db.lookup(board).best_moves
    with pytest.raises(ImpossibleBoardError, match="the players alternate"):
        perfect("xx.......")
    with pytest.raises(InvalidBoardError, match="expected 9 cells, got 1"):
        perfect("x")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("ai15s", "unknown AI 'ai15s': no built-in AI has that name; `ttt-db ais` lists them (did you mean"),
        ("perfekt", "did you mean perfect"),
        ("dls", "dls needs a depth from 0 to 9, as in dls@N"),
        ("dls@x", "dls needs a depth from 0 to 9"),
        ("dls@12", "dls needs a depth from 0 to 9"),
        ("iddfs@soon", "iddfs needs a number of seconds"),
        ("iddfs@0", "iddfs needs a number of seconds above 0"),
        ("iddfs@nan", "iddfs needs a number of seconds above 0"),
        ("iddfs@inf", "iddfs needs a number of seconds above 0"),
        ("ai14s@2", "ai14s takes no parameter"),
        ("no_such_module_xyz:play", "cannot import module 'no_such_module_xyz'"),
        (":play", "a user AI is written package.module:function"),
    ],
)
def test_unknown_ais(spec: str, message: str) -> None:
    with pytest.raises(UnknownAIError) as caught:
        load_ai(spec)
    assert message in str(caught.value)


def test_user_ai_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "userais_errors.py").write_text("NOT_CALLABLE = 3\n")
    (tmp_path / "userais_broken.py").write_text("raise RuntimeError('boom')\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(UnknownAIError, match="module 'userais_errors' has no attribute 'missing'"):
        load_ai("userais_errors:missing")
    with pytest.raises(AIUnusableError, match="'NOT_CALLABLE' in 'userais_errors' is a int, not callable"):
        load_ai("userais_errors:NOT_CALLABLE")
    with pytest.raises(UnknownAIError, match="importing 'userais_broken' raised RuntimeError: boom"):
        load_ai("userais_broken:play")
    sys.modules.pop("userais_errors", None)


def _search_ai_names() -> list[str]:
    """Every built-in AI whose name is also a search's, at a setting for each parameter."""
    names = []
    for entry in BUILTIN_AIS:
        base = entry.name.partition("@")[0]
        instances = [f"{base}@{n}" for n in (0, 2, 4)] if entry.parameter is int else [entry.name]
        for name in instances if entry.parameter is not float else []:
            try:
                parse_algorithm(name, TICTACTOE)
            except UnknownAlgorithmError:
                continue
            names.append(name)
    return names


def test_every_search_ai_runs_the_search_of_its_name() -> None:
    names = _search_ai_names()
    assert {"minimax-tt", "alphabeta-shortest", "dls@2", "abdls@4"} <= set(names)
    boards = [".........", "o...x....", "oo..x....", "ox.xo...."]
    for name in names:
        spec, _ = parse_algorithm(name, TICTACTOE)
        assert load_ai(name).search == spec, name
        if spec is not None and spec.depth is not None:
            for board in boards:  # the same root: the same choice, the same work
                named, report = load_ai(name), run_search(name, board)
                assert named.play(board) == report.best_moves, (name, board)
                assert named.play.engine.counts == report.counts, (name, board)


def test_iddfs_ai_answers_what_the_search_of_its_name_chooses() -> None:
    for board in ["oo..x....", "o...x...."]:
        report = run_search("iddfs@1", board, clock=lambda: 0.0)  # time never passes: every depth completes
        assert IterativeDeepening(1.0, clock=lambda: 0.0, game=TICTACTOE)(board) == report.best_moves
        assert report.completed_depth == board.count(".") - 1


def test_no_ai_is_named_after_a_different_search() -> None:
    # `minimax` is plain minimax among the searches; its AI would be minimax-tt under another name
    with pytest.raises(UnknownAIError):
        load_ai("minimax")


@pytest.mark.parametrize("skill", ["1e-1000000", "1.5", "2/3/4", "0x1"])
def test_a_grade_that_is_not_a_plain_probability_is_refused_unread(skill: str) -> None:
    """Issue 58: a grade's text with an exponent would be a number of a million digits, computed."""
    with pytest.raises(UnknownAIError, match=r"perfect@P needs a probability P from 0 to 1"):
        load_ai(f"perfect@{skill}")
    assert parse_probability("9/10") == parse_probability(" 0.9 ") == Fraction(9, 10)
