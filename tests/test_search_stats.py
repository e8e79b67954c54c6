"""`ttt-db search` and the search AIs on the one engine: node counts equal to the textbook
algorithms' written independently in tests/reference.py (AIMA's alpha-beta, the seed article's
bounds-table alpha-beta, minimax with a table), from the empty board and from 60 others; values
equal to the database's; the AIs' choices equal to the reference's."""

from __future__ import annotations

import json

import pytest
import reference
from reference import tree_nodes_below

from ttt_db.ais.registry import load_ai
from ttt_db.game.definition import TICTACTOE
from ttt_db.game.symmetry import symmetric_images
from ttt_db.search.algorithms import agreement, run_search
from ttt_db.store import published


def test_plain_minimax_from_the_empty_board_examines_the_whole_tree() -> None:
    report = run_search("minimax", ".........")
    assert report.counts.nodes == sum(tree_nodes_below(".........")) == sum(published.TREE_NODES_BY_DEPTH)
    assert report.counts.terminal == 255_168  # the finished games: leaves of the tree
    assert (report.score, report.scale) == (0, "wdl")


@pytest.mark.parametrize("board", ["o...x....", "ox..x...o", "xo..o..x."])
def test_node_counts_are_the_subtree_sizes(board: str) -> None:
    assert run_search("minimax", board).counts.nodes == sum(tree_nodes_below(board))


@pytest.mark.parametrize(
    "algorithm", ["minimax-tt", "alphabeta", "alphabeta-plain", "alphabeta-shortest", "minimax-tt-shortest"]
)
def test_full_searches_agree_with_the_database_everywhere(positions, algorithm: str) -> None:
    for position in positions.values():
        if position.depth >= 5:  # every board from depth 5 on (the shallow ones cost most)
            report = run_search(algorithm, position.cells)
            assert agreement(report, position).agrees, (algorithm, position.cells)


def _sample_boards() -> list[str]:
    """60 unfinished boards of every depth: every 75th unfinished board, breadth first, from the second."""
    boards = [b for b in reference.reachable() if not reference.TICTACTOE.finished(b)]
    return boards[1::75][:60]


def test_alphabeta_plain_counts_what_aimas_alpha_beta_search_counts() -> None:
    value, calls = reference.aima_alpha_beta(".........")
    assert calls == 18_297  # the figure a reader of AIMA gets from its alpha_beta_search, root included
    report = run_search("alphabeta-plain", ".........")
    assert (report.counts.nodes, report.score) == (calls, value)


@pytest.mark.parametrize("shortest", [False, True])
def test_every_search_counts_what_the_reference_counts(shortest: bool) -> None:
    suffix = "-shortest" if shortest else ""
    boards = [".........", *_sample_boards()]
    assert len(boards) == 61
    solve = reference.solver()
    for board in boards:
        sign = 1 if reference.TICTACTOE.mover(board) == "o" else -1
        exact = solve(board).sv_score if shortest else solve(board).score
        plain_value, plain_calls = reference.aima_alpha_beta(board, shortest=shortest)
        seed_value, seed_calls = reference.seed_alpha_beta(board, shortest=shortest)
        expected = {
            "alphabeta-plain": (plain_calls, sign * plain_value),
            "alphabeta": (seed_calls, sign * seed_value),
            "minimax-tt": (reference.minimax_table_calls(board), exact),
        }
        if board != ".........":  # plain minimax from the empty board has a test of its own
            expected["minimax"] = (sum(tree_nodes_below(board)), exact)
        for algorithm, (calls, value) in expected.items():
            report = run_search(algorithm + suffix, board)
            assert (report.counts.nodes, report.score) == (calls, value), (algorithm + suffix, board)
        assert sign * seed_value == sign * plain_value == exact


def test_the_search_ais_choose_the_references_moves(positions) -> None:
    minimax, alphabeta = load_ai("minimax-tt").play, load_ai("alphabeta").play
    shortest = load_ai("alphabeta-shortest").play
    dls1, abdls1 = load_ai("dls@1").play, load_ai("abdls@1").play
    decision = [p.cells for p in positions.values() if p.status == "playing" and len(p.best_moves) < len(p.moves)]
    assert len(decision) == published.LIST_SIZES["decision"]
    for board in decision:
        best = reference.best_moves(board)
        assert minimax(board) == alphabeta(board) == best, board
        assert shortest(board) == reference.best_moves(board, shortest=True), board
        assert dls1(board) == reference.depth_limited_choice(board, 1, lines_at_limit=False), board
        assert abdls1(board) == reference.depth_limited_choice(board, 1, lines_at_limit=True), board


def test_deeper_depth_limited_ais_choose_the_references_moves(positions) -> None:
    dls3, abdls2, abdls3 = load_ai("dls@3").play, load_ai("abdls@2").play, load_ai("abdls@3").play
    canonical = [p.cells for p in positions.values() if p.status == "playing" and p.cells == p.canonical]
    for board in canonical[::3]:
        assert dls3(board) == reference.depth_limited_choice(board, 3, lines_at_limit=False), board
        assert abdls2(board) == reference.depth_limited_choice(board, 2, lines_at_limit=True), board
        assert abdls3(board) == reference.depth_limited_choice(board, 3, lines_at_limit=True), board


@pytest.mark.parametrize(
    ("algorithm", "board"),
    [
        ("minimax", "o...x...."),
        ("minimax", "ox......."),
        ("minimax", "xo..o...."),
        ("minimax-tt", "o........"),
        ("minimax-tt", ".o......."),
        ("dls@3", "o........"),
        ("dls@3", "ox......."),
    ],
)
def test_symmetric_boards_cost_the_same(algorithm: str, board: str) -> None:
    counts = {run_search(algorithm, image).counts.nodes for image in symmetric_images(board, TICTACTOE)}
    assert len(counts) == 1


def test_alphabeta_examines_far_fewer_nodes_than_minimax() -> None:
    nodes = {
        name: run_search(name, "o...x....").counts.nodes
        for name in ("minimax", "minimax-tt", "alphabeta-plain", "alphabeta")
    }
    assert nodes["alphabeta"] < nodes["alphabeta-plain"] < nodes["minimax"]
    assert nodes["minimax-tt"] < nodes["minimax"]


def test_iddfs_counts_every_iteration_with_an_injected_clock() -> None:
    report = run_search("iddfs@1000", "oo..x....", clock=lambda: 0.0)  # time never passes
    assert report.completed_depth == 5  # abdls@0 .. abdls@5: every empty cell but the move itself
    assert report.counts.nodes == sum(report.iterations)
    assert report.best_moves == (2,)


def test_search_command_text(run) -> None:
    result = run("search", "alphabeta", "ox..x....")
    assert result.exit_code == 0
    _, calls = reference.seed_alpha_beta("xo..o....")  # x moved first: searched with the marks swapped
    lines = result.stdout.splitlines()
    assert lines[:3] == [
        "alphabeta from ox..x.... (x moved first: searched with the marks swapped, o first)",
        "score +0 (win/draw/loss: 1, 0, -1 from the first player's side)",
        "best moves: not proved by this search (a pruned root proves its value only; the database's are below)",
    ]
    assert lines[3].startswith(f"nodes {calls:,}, finished boards ")
    assert lines[-1] == "database: score +0, best moves 7 (b3): agrees"


def test_search_command_compare_and_json(run) -> None:
    table = run("search", "--compare", "minimax", "alphabeta", "dls@2", "o...x....").stdout.splitlines()
    assert table[0].startswith("from o...x.... (o moved first); every score from o's side, on its algorithm's scale")
    assert [line.split()[:2] for line in table[2:]] == [["minimax", "wdl"], ["alphabeta", "wdl"], ["dls@2", "plies"]]
    document = json.loads(run("search", "minimax", "o...x.---", "--json").stdout)
    assert (document["nodes"], document["agrees"]) == (sum(tree_nodes_below("o...x....")), True)
    assert document["database"] == {"score": 0, "best_moves": list(reference.best_moves("o...x...."))}
    assert (document["best_moves"], document["best_moves_from"]) == (document["database"]["best_moves"], "database")
    depth_limited = json.loads(run("search", "dls@2", "o...x....", "--json").stdout)
    assert depth_limited["best_moves_from"] == "search"
    assert tuple(depth_limited["best_moves"]) == reference.depth_limited_choice("o...x....", 2, lines_at_limit=False)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["search", "frob"], "invalid search algorithm 'frob': the algorithms are minimax, minimax-tt"),
        (["search", "dls@12"], "invalid search algorithm 'dls@12': dls needs a depth from 0 to 9"),
        (["search", "alphabeta", "minimax"], "give one algorithm and a board, or --compare for several"),
        (["search"], "give a search algorithm"),
    ],
)
def test_search_command_errors(run, args: list[str], message: str) -> None:
    result = run(*args)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {message}")


def test_depth_limited_minimax_visits_the_tree_to_its_horizon() -> None:
    # dls@N prunes nothing: the root, and every board N + 1 plies below it or nearer (the deepest
    # ones estimated), finished games included, each once per path
    for board in [".........", *_sample_boards()[::6]]:
        by_depth, marks = tree_nodes_below(board), 9 - board.count(".")  # by the number of marks
        for depth in (0, 1, 3):
            report = run_search(f"dls@{depth}", board)
            assert report.counts.nodes == sum(by_depth[marks : marks + depth + 2]), (board, depth)
