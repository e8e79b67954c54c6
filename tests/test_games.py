"""Small m,n,k-games built into temporary databases and held to a brute-force solver written
here, independently of the builder: plain recursion over every board, no symmetry, no arrays."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from builder.pipeline import build_database
from ttt_db.database import open_database
from ttt_db.mnk import Game
from ttt_db.symmetry import symmetric_images
from ttt_db.verify import verify_database

SMALL_GAMES = ("2x2k2", "2x3k2", "3x4k3", "4x3k3", "3x3k2", "1x4k2")
Solved = dict[str, tuple[int, int]]  # board -> (score from o's side, remoteness)


def brute_force(game: Game) -> Solved:
    """Every board reachable from the empty one, solved by plain minimax."""
    lines = [
        [(r + dr * i) * game.columns + c + dc * i for i in range(game.k)]
        for r in range(game.rows) for c in range(game.columns)
        for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1))
        if 0 <= r + dr * (game.k - 1) < game.rows and 0 <= c + dc * (game.k - 1) < game.columns
    ]
    solved: Solved = {}

    def solve(board: str) -> tuple[int, int]:
        if board in solved:
            return solved[board]
        if any(all(board[i] == "o" for i in line) for line in lines):
            result = (1, 0)
        elif any(all(board[i] == "x" for i in line) for line in lines):
            result = (-1, 0)
        elif "." not in board:
            result = (0, 0)
        else:
            mark = "o" if board.count("o") == board.count("x") else "x"
            sign = 1 if mark == "o" else -1
            children = [solve(board[:i] + mark + board[i + 1:]) for i, c in enumerate(board) if c == "."]
            best = max(sign * score for score, _ in children)
            keeping = [remoteness for score, remoteness in children if sign * score == best]
            result = (sign * best, 1 + (min(keeping) if best > 0 else max(keeping)))
        solved[board] = result
        return result

    solve("." * game.cells)
    return solved


@pytest.fixture(scope="module", params=SMALL_GAMES)
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


def test_every_board_and_its_images_answer_as_the_brute_force(built: tuple[Game, Path, Solved]) -> None:
    game, path, solved = built
    boards = random.Random(3).sample(sorted(solved), min(1500, len(solved)))
    with open_database(path, game=game) as db:
        for board in boards:
            score, remoteness = solved[board]
            position = db.lookup(board)
            assert (position.score, position.remoteness) == (score, remoteness), board
            if position.status == "playing":
                mark = position.to_move
                sign = 1 if mark == "o" else -1
                best = tuple(m for m in board_moves(board) if sign * solved[play(board, m, mark)][0] == sign * score)
                assert position.best_moves == best, board


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


def test_sampled_boards_answer_alike_in_every_orientation(built: tuple[Game, Path, Solved]) -> None:
    game, path, solved = built
    boards = random.Random(7).sample(sorted(solved), min(50, len(solved)))
    with open_database(path, game=game) as db:
        for board in boards:
            for image in symmetric_images(board, game):
                assert db.lookup(image).value == db.lookup(board).value


def board_moves(board: str) -> list[int]:
    return [i for i, c in enumerate(board) if c == "."]


def play(board: str, move: int, mark: str | None) -> str:
    return board[:move] + str(mark) + board[move + 1:]


def test_the_wrong_board_size_and_game_are_refused(run, built: tuple[Game, Path, Solved]) -> None:
    game, path, _ = built
    wrong = "." * (game.cells + 1)
    result = run("best-moves", "--game", game.name, "--db", str(path), wrong)
    assert result.exit_code == 2
    assert f"expected {game.cells} cells for {game}, got {game.cells + 1}" in result.stderr
    other = run("best-moves", "--db", str(path), ".........")
    assert other.exit_code == 2 and f"solves {game}, not 3x3k3" in other.stderr
