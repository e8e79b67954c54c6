"""`verify` finds tampering; `export` round-trips into the values the library returns."""

from __future__ import annotations

import io
import json

import pytest

from ttt_db.game.symmetry import symmetric_images
from ttt_db.store.database import SolutionDatabase, open_database
from ttt_db.store.export import read_csv, read_jsonl, write_csv, write_jsonl
from ttt_db.store.verify import verify_database


def test_a_fresh_database_verifies(db: SolutionDatabase) -> None:
    report = verify_database(db)
    assert report.ok, report.problems
    assert len(report.checks) == len(set(report.checks)) == 33
    assert report.checks[:3] == ["file integrity", "content digest", "rows decode and follow the rules"]


TAMPERING = [
    (
        "update ttt_positions set score = 1 where board = '.........'",
        "row against rules and children: .........: stores",
    ),
    ("update ttt_positions set paths = 3 where board = '.......xo'", "paths: .......xo: paths 3, parents give 1"),
    (
        "update ttt_positions set best_moves = x'9100' where board = '....o..ox'",
        "row against rules and children: ....o..ox: stores",
    ),
    (
        "update ttt_node_lists set boards = x'90', size = 0 where name = 'decision'",
        "node list decision size (published): found 0",
    ),
    ("update ttt_depth_counts set tree_nodes = 5 where depth = 2", "tree nodes by depth (depth table)"),
    ("update ttt_positions set value = 'win' where board = 'ooxxxooxo'", "values (published): found"),
]


def test_each_tampering_is_reported(altered_copy) -> None:
    """Six independent changes in one copy (one verify run): each is named by its own check."""
    with open_database(altered_copy(*(statement for statement, _ in TAMPERING))) as database:
        report = verify_database(database)
    assert not report.ok
    for statement, expected in TAMPERING:
        assert any(problem.startswith(expected) for problem in report.problems), (statement, report.problems)


def test_a_broken_symmetry_is_reported(altered_copy) -> None:
    # x's best replies to a centre o are the four corners; one corner alone breaks the symmetry
    damaged = altered_copy("update ttt_positions set best_moves = x'9100' where board = '....o....'")
    with open_database(damaged) as database:
        problems = verify_database(database).problems
    assert "symmetric images agree: ....o....: best moves (0,) are not symmetric under transform 1" in problems


def _library_record(db: SolutionDatabase, board: str) -> dict[str, object]:
    position = db.lookup(board)
    return {
        "board": position.board,
        "to_move": position.to_move,
        "status": position.status,
        "score": position.score,
        "value": position.value,
        "remoteness": position.remoteness,
        "sv_score": position.sv_score,
        "best_moves": list(position.best_moves),
        "best_moves_shortest": list(position.best_moves_shortest),
        "playout": [float(position.playout.o), float(position.playout.x), float(position.playout.draw)],
        "paths": position.paths,
        "canonical": position.canonical,
        "depth": position.depth,
        "first": position.first,
        "score_viewpoint": "o",
        "value_viewpoint": "o" if position.depth % 2 == 0 else "x",
        "playout_odds": {
            "o": float(position.playout.o),
            "x": float(position.playout.x),
            "draw": float(position.playout.draw),
        },
        "orbit": len(set(symmetric_images(position.board))),
        "game": "3x3k3",
    }


@pytest.mark.parametrize(("write", "read"), [(write_jsonl, read_jsonl), (write_csv, read_csv)])
def test_export_round_trips_into_library_values(db: SolutionDatabase, write, read) -> None:
    stream = io.StringIO()
    write(db.all_positions(), stream)
    stream.seek(0)
    records = list(read(stream))
    assert len(records) == 5478
    assert len({r["board"] for r in records}) == 5478
    for record in records:
        assert record == _library_record(db, record["board"])


def test_jsonl_record_shape(db: SolutionDatabase) -> None:
    stream = io.StringIO()
    write_jsonl(db.load_all()[:1], stream)
    record = json.loads(stream.getvalue())
    assert record == {
        "board": ".........",
        "to_move": "o",
        "status": "playing",
        "score": 0,
        "value": "draw",
        "remoteness": 9,
        "sv_score": 0,
        "best_moves": list(range(9)),
        "best_moves_shortest": list(range(9)),
        "playout": [737 / 1260, 363 / 1260, 160 / 1260],
        "paths": 1,
        "canonical": ".........",
        "depth": 0,
        "first": "o",
        "score_viewpoint": "o",
        "value_viewpoint": "o",
        "playout_odds": {"o": 737 / 1260, "x": 363 / 1260, "draw": 160 / 1260},
        "orbit": 1,
        "game": "3x3k3",
    }
