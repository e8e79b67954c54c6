"""The built database against the figures of docs/figures.md."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

from ttt_db.position import Position
from ttt_db.store import published
from ttt_db.store.database import SolutionDatabase
from ttt_db.store.schema import SCHEMA_VERSION

TREE_NODES_BY_DEPTH = list(published.TREE_NODES_BY_DEPTH)
POSITIONS_BY_DEPTH = list(published.POSITIONS_BY_DEPTH)
TREE_NODES = sum(TREE_NODES_BY_DEPTH)


def test_tree_nodes_and_positions_by_depth(db: SolutionDatabase) -> None:
    depths = db.depth_figures()
    assert [d.tree_nodes for d in depths] == TREE_NODES_BY_DEPTH
    assert [d.positions for d in depths] == POSITIONS_BY_DEPTH
    assert sum(d.canonical_positions for d in depths) == published.LIST_SIZES["canonical"]


def test_paths_sum_to_the_tree(positions: dict[str, Position]) -> None:
    assert len(positions) == published.LIST_SIZES["all"]
    assert sum(p.paths for p in positions.values()) == TREE_NODES
    by_depth = Counter()
    for p in positions.values():
        by_depth[p.depth] += p.paths
    assert [by_depth[d] for d in range(10)] == TREE_NODES_BY_DEPTH


def test_value_counts(positions: dict[str, Position]) -> None:
    assert Counter(p.value for p in positions.values()) == published.VALUES
    canonical = [p for p in positions.values() if p.cells == p.canonical]
    assert len(canonical) == published.LIST_SIZES["canonical"]
    assert Counter(p.value for p in canonical) == published.VALUES_CANONICAL


def test_node_lists(db: SolutionDatabase, positions: dict[str, Position]) -> None:
    sizes = {name: len(db.node_list(name)) for name in db.node_list_names()}
    assert sizes == published.LIST_SIZES
    playing = {p.cells for p in positions.values() if p.status == "playing"}
    assert len({positions[b].canonical for b in playing}) == published.LIST_SIZES["playing_canonical"]
    for board in db.node_list("decision"):
        position = positions[board]
        assert position.status == "playing"
        assert len(position.best_moves) < len(position.moves)
    assert set(db.node_list("decision_canonical")) == {
        b for b in db.node_list("decision") if positions[b].canonical == b
    }


def test_empty_board(db: SolutionDatabase) -> None:
    empty = db.lookup(".........")
    assert (empty.value, empty.score, empty.remoteness, empty.sv_score) == ("draw", 0, 9, 0)
    assert empty.best_moves == tuple(range(9))
    assert empty.playout.o == Fraction(737, 1260)
    assert empty.playout.x == Fraction(363, 1260)
    assert empty.playout.draw == Fraction(160, 1260)
    assert abs(float(empty.playout.o) - 0.584920634920635) < 1e-15
    assert empty.paths == 1


def test_the_reference_example(db: SolutionDatabase) -> None:
    position = db.lookup("ox..x....")
    assert position.first == "x"
    assert position.to_move == "o"
    assert position.value == "draw"
    assert position.best_moves == (7,)


def test_finished_positions(positions: dict[str, Position]) -> None:
    won = positions["ooo.xx..."]
    assert (won.status, won.value, won.score, won.remoteness, won.to_move) == ("o", "loss", 1, 0, None)
    assert won.sv_score == 3  # o won at move 5: (11 - 5) / 2
    assert won.moves == ()
    full = [p for p in positions.values() if p.status == "draw"]
    assert full and all(p.value == "draw" and p.remoteness == 0 for p in full)


def test_sv_score_range_and_shortest_moves(positions: dict[str, Position]) -> None:
    assert {p.sv_score for p in positions.values()} == {-2, -1, 0, 1, 2, 3}
    for p in positions.values():
        assert set(p.best_moves_shortest) <= set(p.best_moves)
        if p.value == "win":  # the fastest wins are exactly the wins with the least remoteness left
            fastest = tuple(a.move for a in p.moves if a.value == "win" and a.remoteness == p.remoteness - 1)
            assert p.best_moves_shortest == fastest


def test_remoteness_is_plies_to_the_end(positions: dict[str, Position]) -> None:
    for p in positions.values():
        if p.value == "draw":
            assert p.remoteness == 9 - p.depth
        if p.status == "playing":
            assert p.remoteness >= 1


def test_playout_sums_to_one(positions: dict[str, Position]) -> None:
    assert all(p.playout.o + p.playout.x + p.playout.draw == 1 for p in positions.values())


def test_meta(db: SolutionDatabase) -> None:
    meta = db.meta()
    assert meta["schema_version"] == SCHEMA_VERSION == 9  # 9: the build's record left out of the digest
    assert meta["rules"] == {"game": "3x3k3", "rows": 3, "columns": 3, "in_a_row": 3, "first": "o"}
    assert meta["figures"]["empty_board"] == {"value": "draw", "remoteness": 9}
    assert meta["figures"]["tree_nodes"] == TREE_NODES
    assert meta["figures"]["decision_canonical"] == 431
