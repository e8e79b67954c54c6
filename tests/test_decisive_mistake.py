"""The weak check names the move that lost the game: the first of the AI's moves after which its
side can no longer reach the result it is held to, with the board, the values before and after,
and the moves that would have held. Bots written here carry the faults real ones have; what the
check must say is derived with the tests' reference solver."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

import pytest
import reference

from ttt_db.ais.protocol import NamedAI
from ttt_db.checks.report import run_checks
from ttt_db.game.definition import TICTACTOE
from ttt_db.store.database import SolutionDatabase

RULES = reference.TICTACTOE
solve = reference.solver()
RANK = {"loss": 0, "draw": 1, "win": 2}


def _value_for(side: str, board: str) -> str:
    score = solve(board).score if side == "o" else -solve(board).score
    return "win" if score > 0 else "loss" if score < 0 else "draw"


@dataclass(frozen=True)
class Expected:
    ply: int
    board: str
    move: int
    value_before: str
    value_after: str
    held: tuple[int, ...]


def expected_mistake(moves: tuple[int, ...], side: str, target: str = "draw") -> Expected:
    """Walk the counterexample with the reference: the first move of `side` whose board is worth
    less than `target` to it, and every move there worth at least `target`."""
    board = RULES.empty
    for ply, move in enumerate(moves):
        mover = RULES.mover(board)
        after = board[:move] + mover + board[move + 1 :]
        if mover == side and RANK[_value_for(side, after)] < RANK[target]:
            held = tuple(m for m, child in RULES.children(board) if RANK[_value_for(side, child)] >= RANK[target])
            return Expected(ply, board, move, _value_for(side, board), _value_for(side, after), held)
        board = after
    raise AssertionError("the counterexample holds no decisive mistake")


def corner_answers_corner(board: str) -> list[int]:
    """A rule-based bot: win if it can, block if it must, else the first free corner, else the first free cell."""
    me = RULES.mover(board)
    for mark in (me, "x" if me == "o" else "o"):
        for move, _ in RULES.children(board):
            if RULES.winner(board[:move] + mark + board[move + 1 :]) == mark:
                return [move]
    corners = [c for c in (0, 2, 6, 8) if board[c] == "."]
    return [corners[0]] if corners else [board.index(".")]


TRAINED = {".........": [4], "o........": [4], "....o....": [0], "o...x...o": [1]}


def learner(board: str) -> list[int]:
    """A tabular learner: what it learnt on the boards it saw in training, the first free cell elsewhere."""
    return TRAINED.get(board, [board.index(".")])


def depth_limited_horizon(board: str) -> list[int]:
    """A search whose horizon misleads it: one ply deep, it takes a winning move, else every move
    that does not let the opponent win at once, else any move."""
    me, them = RULES.mover(board), "x" if RULES.mover(board) == "o" else "o"
    moves = [m for m, _ in RULES.children(board)]
    wins = [m for m in moves if RULES.winner(board[:m] + me + board[m + 1 :]) == me]
    if wins:
        return wins
    safe = []
    for m in moves:
        after = board[:m] + me + board[m + 1 :]
        if not any(RULES.winner(after[:r] + them + after[r + 1 :]) == them for r, _ in RULES.children(after)):
            safe.append(m)
    return safe or moves


BOTS: list[tuple[str, Callable[[str], list[int]]]] = [
    ("corner-answers-corner", corner_answers_corner),
    ("learner", learner),
    ("horizon", depth_limited_horizon),
]


@pytest.mark.parametrize(("name", "bot"), BOTS)
def test_the_decisive_mistake_is_the_move_that_lost_the_game(db: SolutionDatabase, name: str, bot) -> None:
    report = run_checks(NamedAI(name, bot, None, name), db, strong=False)
    assert report.weak is not None and not report.weak.solved
    for side in (report.weak.o, report.weak.x):
        if side.counterexample is None:
            assert side.side not in report.mistakes
            continue
        expected = expected_mistake(side.counterexample.moves, side.side, side.target)
        found = report.mistakes[side.side]
        assert (found.ply, found.board, found.move, found.value_before, found.value_after, found.held) == (
            expected.ply,
            expected.board,
            expected.move,
            expected.value_before,
            expected.value_after,
            expected.held,
        ), (name, side.side)
        assert RANK[found.value_before] >= RANK[side.target] > RANK[found.value_after]


def test_the_decisive_mistake_is_not_a_move_that_kept_the_draw(db: SolutionDatabase) -> None:
    """ai1s as o: its third move (c1) throws a win away but keeps the draw; the game is lost two
    moves later, and that is the move the check names."""
    report = run_checks(NamedAI("first-free", lambda b: [b.index(".")], None, ""), db, strong=False)
    mistake = report.mistakes["o"]
    assert _value_for("o", "ox.......") == "win" and _value_for("o", "oxo......") == "draw"
    assert mistake.ply > 2 and (mistake.value_before, mistake.value_after) == ("draw", "loss")


def test_text_and_json_name_the_decisive_mistake(run, tmp_path, monkeypatch) -> None:
    (tmp_path / "bots_here.py").write_text(
        "def play(board):\n"
        "    corners = [c for c in (0, 2, 6, 8) if board[c] == '.']\n"
        "    return [corners[0]] if corners else [board.index('.')]\n"
    )
    monkeypatch.chdir(tmp_path)
    document = json.loads(run("check", "bots_here:play", "--weak", "--json").stdout)
    side = next(s for s in ("o", "x") if document["weak"][s]["counterexample"])
    mistake = document["weak"][side]["mistake"]
    expected = expected_mistake(tuple(document["weak"][side]["counterexample"]["moves"]), side)
    assert (mistake["board"], mistake["move"], mistake["value_before"], mistake["value_after"]) == (
        expected.board,
        expected.move,
        expected.value_before,
        expected.value_after,
    )
    assert mistake["held"] == list(expected.held)
    text = run("check", "bots_here:play", "--weak").stdout
    assert f"its decisive mistake, {mistake['text']}\n" in text
    got = {"win": "the win", "draw": "a draw"}[expected.value_before]
    after = {"draw": "draws", "loss": "loses"}[expected.value_after]
    assert mistake["text"].startswith(f"move {expected.ply + 1}: {side} could still get {got}; it played ")
    assert f"it played {expected.move} ({TICTACTOE.move_name(expected.move)}), which {after}" in mistake["text"]
    named = [f"{move} ({TICTACTOE.move_name(move)})" for move in expected.held]
    held = named[0] if len(named) == 1 else f"{', '.join(named[:-1])} or {named[-1]}"
    assert mistake["text"].endswith(f"; {held} would have kept {mistake['held_text']}")


def _reference_first_drop(moves: list[int], side: str | None = None) -> int | None:
    """The first ply whose mover (`side` only, when given) is worth less after its move than before."""
    board = RULES.empty
    for ply, move in enumerate(moves):
        mover = RULES.mover(board)
        after = board[:move] + mover + board[move + 1 :]
        if (side is None or mover == side) and RANK[_value_for(mover, after)] < RANK[_value_for(mover, board)]:
            return ply
        board = after
    return None


def _random_games(count: int) -> list[list[int]]:
    import random

    rng = random.Random(7)
    games = []
    for _ in range(count):
        board, moves = RULES.empty, []
        while not RULES.finished(board):
            move, board = rng.choice(RULES.children(board))
            moves.append(move)
        games.append(moves)
    return games


def test_play_the_page_and_the_check_name_one_first_mistake(db: SolutionDatabase) -> None:
    from starlette.testclient import TestClient

    from ttt_db.play.playthrough import Playthrough
    from ttt_db.web.app import create_app

    games = _random_games(60)
    with TestClient(create_app(db)) as client:
        for moves in games:
            playthrough = Playthrough(TICTACTOE)
            for move in moves:
                playthrough.push(move)
            expected = _reference_first_drop(moves)
            page = client.get("/api/mistake", params={"moves": ",".join(map(str, moves))}).json()["mistake"]
            assert (None if page is None else page["ply"]) == expected, moves
            for side in ("o", "x"):
                mine = playthrough.first_mistake(db.lookup, side)
                assert (None if mine is None else mine.ply) == _reference_first_drop(moves, side), (moves, side)
            # the same game told with x first: the same move, in x-first marks
            swapped = client.get("/api/mistake", params={"moves": ",".join(map(str, moves)), "first": "x"}).json()
            if page is not None:
                assert swapped["mistake"]["move"] == page["move"]
                assert swapped["mistake"]["to_move"] == ("x" if page["to_move"] == "o" else "o")
    assert sum(_reference_first_drop(moves) is not None for moves in games) > 30  # random play errs


def test_a_mistake_request_refuses_an_illegal_move_with_the_move_quoted(db: SolutionDatabase) -> None:
    from starlette.testclient import TestClient

    from ttt_db.web.app import create_app

    with TestClient(create_app(db)) as client:
        answer = client.get("/api/mistake", params={"moves": "4,4"})
        assert answer.status_code == 400 and "4" in answer.json()["error"]
        assert client.get("/api/mistake", params={"moves": "b2,zz"}).status_code == 400
        assert client.get("/api/mistake").json() == {"mistake": None}


def test_a_mistake_from_a_won_position_says_what_its_held_moves_keep(db: SolutionDatabase) -> None:
    """From a position its side wins, a move that loses: held to the start's draw (a weak check),
    the drawing moves keep "a draw or better"; held to the position's own value, only the winning
    moves keep "the win"."""
    from ttt_db.play.mistakes import first_mistake

    found = next(
        position
        for position in db.load_all()
        if position.value == "win" and {move.value for move in position.moves} == {"win", "draw", "loss"}
    )
    losing = next(move.move for move in found.moves if move.value == "loss")
    by_value = {value: {move.move for move in found.moves if move.value == value} for value in ("win", "draw")}
    weak = first_mistake([found], [losing], target="draw")
    own = first_mistake([found], [losing])
    assert weak is not None and own is not None
    assert (weak.held_to, weak.held_text, set(weak.held)) == (
        "draw",
        "a draw or better",
        by_value["win"] | by_value["draw"],
    )
    assert (own.held_to, own.held_text, set(own.held)) == ("win", "the win", by_value["win"])
    assert weak.to_dict()["held_text"] == "a draw or better"
