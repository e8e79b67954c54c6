"""The 8 symmetries: a group of permutations with inverses, under which values are invariant."""

from __future__ import annotations

import itertools
import random

import pytest
import reference

from ttt_db.game.definition import TICTACTOE, Game
from ttt_db.game.symmetry import (
    canonical_and_orbit_many,
    canonical_board,
    canonical_transform,
    symmetric_images,
    transform_board,
    transform_move,
    untransform_move,
)
from ttt_db.store.database import SolutionDatabase


def test_eight_distinct_permutations_closed_under_composition() -> None:
    assert len(set(TICTACTOE.transforms)) == 8
    assert all(sorted(t) == list(range(9)) for t in TICTACTOE.transforms)
    for a, b in itertools.product(TICTACTOE.transforms, repeat=2):
        assert tuple(a[b[i]] for i in range(9)) in TICTACTOE.transforms
    assert transform_board("o........", 1, TICTACTOE) == "..o......"  # a quarter turn clockwise


@pytest.mark.parametrize("t", range(8))
def test_inverses(t: int) -> None:
    assert all(TICTACTOE.inverses[t][TICTACTOE.transforms[t][i]] == i for i in range(9))
    for move in range(9):
        assert untransform_move(transform_move(move, t, TICTACTOE), t, TICTACTOE) == move
        board = "." * move + "o" + "." * (8 - move)
        assert transform_board(board, t, TICTACTOE)[transform_move(move, t, TICTACTOE)] == "o"


def test_canonical_is_the_smallest_image() -> None:
    assert canonical_board("o........", TICTACTOE) == "........o"  # "." sorts before "o"
    canonical, t = canonical_transform("x.......o", TICTACTOE)
    assert canonical == "..o...x.." == transform_board("x.......o", t, TICTACTOE)
    assert canonical == min(symmetric_images("x.......o", TICTACTOE))


@pytest.mark.parametrize("name", ["3x3k3", "3x4k3", "2x9k3", "5x5k4"])
def test_the_canonical_boards_and_orbits_of_a_batch_are_each_boards_own(name: str) -> None:
    """In arrays (a batch's lookups) as one board at a time: its smallest image and how many distinct
    images it has, symmetric boards (orbits of 1, 2 and 4) and a rectangle's 4 symmetries included."""
    game = Game.parse(name)
    draw = random.Random(40)
    boards = ["".join(cells) for cells in itertools.product(".ox", repeat=9)] if game.cells == 9 else []
    boards += [game.empty_board, *("".join(draw.choice(".ox") for _ in range(game.cells)) for _ in range(2000))]
    for board in boards[:500]:  # symmetric boards of the larger games: each board made from half of it
        boards.append(board[: game.cells // 2] + "o" * (game.cells % 2) + board[: game.cells // 2][::-1])
    images = [symmetric_images(board, game) for board in boards]
    assert canonical_and_orbit_many(boards, game) == (
        [min(found) for found in images],
        [len(set(found)) for found in images],
    )
    assert {len(set(found)) for found in images} >= ({1, 2, 4} if game.square else {1, 2})
    assert canonical_and_orbit_many([], game) == ([], [])


def test_every_image_told_from_its_class_is_what_a_search_of_the_image_finds(db: SolutionDatabase) -> None:
    # the database stores one class and tells each image from it (values kept, moves carried
    # back): held to the reference solver run on the image itself, which knows no symmetry
    solve = reference.solver()
    for board in reference.reachable()[::7]:
        for image in reference.TICTACTOE.images(board):
            told, searched = db.lookup(image), solve(image)
            assert (told.score, told.sv_score, told.remoteness) == (
                searched.score,
                searched.sv_score,
                searched.remoteness,
            ), image
            assert told.best_moves == reference.best_moves(image), image
            assert told.canonical == min(reference.TICTACTOE.images(board)), image


def test_a_move_on_the_canonical_board_maps_back(db: SolutionDatabase) -> None:
    board = "x...o..o."  # x to move; its canonical image is another board
    assert canonical_board(board, TICTACTOE) != board
    canonical, t = canonical_transform(board, TICTACTOE)
    canonical_best = db.lookup(canonical).best_moves
    assert tuple(sorted(untransform_move(m, t, TICTACTOE) for m in canonical_best)) == db.lookup(board).best_moves
