"""Figures derived here, by code written for the test, instead of pasted: an independent count
of the game tree, a brute-force minimax over every position, and ai14s's strong-check failures."""

from __future__ import annotations

import pytest
import reference
from reference import best_moves, tree_nodes_below

from ttt_db.ais.rule_based import ai14s
from ttt_db.store import published
from ttt_db.store.database import SolutionDatabase

solve = reference.solver()


def children(board: str) -> list[tuple[int, str]]:
    return reference.TICTACTOE.children(board)


def test_the_tree_counted_depth_first() -> None:
    assert tree_nodes_below(".........") == published.TREE_NODES_BY_DEPTH  # counted, against the literature


def test_every_stored_value_equals_a_brute_force_minimax(positions) -> None:
    boards = reference.reachable()
    assert set(boards) == set(positions)
    for board in boards:
        stored, expected = positions[board], solve(board)
        assert (stored.score, stored.sv_score, stored.remoteness) == (
            expected.score,
            expected.sv_score,
            expected.remoteness,
        ), board
        if children(board):
            assert stored.best_moves == best_moves(board), board


def test_ai14s_strong_failures_are_the_ones_the_test_finds(db: SolutionDatabase) -> None:
    decision = sorted(
        (b for b in reference.reachable() if children(b) and len(best_moves(b)) < len(children(b))),
        key=lambda b: (9 - b.count("."), b),
    )
    assert len(decision) == published.LIST_SIZES["decision"]
    expected = [b for b in decision if not set(ai14s(b)) <= set(best_moves(b))]
    result = reference.check_strong(ai14s, db.node_list("decision"), db.best_moves_table())
    assert [f.board for f in result.failures] == expected
    assert (result.correct, result.total) == (len(decision) - len(expected), len(decision))


@pytest.mark.parametrize("board", ["o........", "....o....", ".o.......", "xo..o....", "ox..o..x."])
def test_every_symmetric_image_answers_as_the_reference(db: SolutionDatabase, board: str) -> None:
    for image in reference.TICTACTOE.images(board):
        position = db.lookup(image)
        assert (position.score, position.remoteness) == (solve(image).score, solve(image).remoteness), image
        assert position.best_moves == best_moves(image), image


def test_the_export_holds_every_position_as_the_reference_derives_it(db: SolutionDatabase) -> None:
    import io
    import json

    from ttt_db.outputs.export import write_jsonl

    paths_to = reference.paths()
    stream = io.StringIO()
    write_jsonl(db.all_positions(), stream)
    records = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert len(records) == len(paths_to) == published.LIST_SIZES["all"]
    for record in records:
        expected = reference.export_record(record["board"], reference.TICTACTOE, paths_to)
        assert {key: record[key] for key in expected} == expected, record["board"]
