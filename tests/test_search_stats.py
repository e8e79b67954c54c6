"""`ttt-db search`: node counts derived independently, answers equal to the database's and to
the search AIs', symmetric boards costing the same, exact CLI output."""

from __future__ import annotations

import json

import pytest
from test_derived import tree_nodes_below

from ttt_db.ais.searching import AlphaBeta, DepthLimited, Minimax
from ttt_db.game.symmetry import symmetric_images
from ttt_db.search.algorithms import agreement, run_search


def test_plain_minimax_from_the_empty_board_examines_the_whole_tree() -> None:
    report = run_search("minimax", ".........")
    assert report.counts.nodes == sum(tree_nodes_below(".........")) == 549_946
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
            report = run_search(algorithm, position.board)
            assert agreement(report, position).agrees, (algorithm, position.board)


def test_searches_choose_what_the_search_ais_choose(positions) -> None:
    minimax, alphabeta = Minimax(), AlphaBeta()
    dls2, abdls2 = DepthLimited(2), DepthLimited(2, evaluate_lines=True)
    for position in positions.values():
        if position.status != "playing" or position.depth < 5:
            continue
        board = position.board
        assert run_search("minimax-tt", board).best_moves == minimax(board)
        assert run_search("alphabeta", board).best_moves == alphabeta(board)
        assert run_search("dls@2", board).best_moves == dls2(board), board
        assert run_search("abdls@2", board).best_moves == abdls2(board), board


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
    counts = {run_search(algorithm, image).counts.nodes for image in symmetric_images(board)}
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
    assert result.stdout.splitlines() == [
        "alphabeta from ox..x.... (x moved first: searched with the marks swapped, o first)",
        "score +0 (win/draw/loss: 1, 0, -1 from the first player's side)",
        "best moves: 7 (b3)",
        result.stdout.splitlines()[3],  # holds the wall time
        "table: 186 probes, 57 exact hits, 7 bound hits, 122 stores",
        "database: score +0, best moves 7 (b3): agrees",
    ]
    assert result.stdout.splitlines()[3].startswith("nodes 187, finished boards 31, cutoffs 54, deepest ply 6, ")


def test_search_command_compare_and_json(run) -> None:
    table = run("search", "--compare", "minimax", "alphabeta", "o...x....").stdout.splitlines()
    assert table[0] == "from o...x.... (o moved first); scores from o's side"
    assert [line.split()[0] for line in table[2:]] == ["minimax", "alphabeta"]
    document = json.loads(run("search", "minimax", "o...x.---", "--json").stdout)
    assert (document["nodes"], document["agrees"]) == (sum(tree_nodes_below("o...x....")), True)
    assert document["database"] == {"score": 0, "best_moves": [1, 2, 3, 5, 6, 7, 8]}


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
