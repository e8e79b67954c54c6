"""The 8 symmetries: a group of permutations with inverses, under which values are invariant."""

from __future__ import annotations

import itertools

import pytest
import reference

from ttt_db.game.definition import TICTACTOE
from ttt_db.game.symmetry import (
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
