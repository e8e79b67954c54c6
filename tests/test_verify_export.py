"""`verify` finds tampering; `export` round-trips into the values the library returns."""

from __future__ import annotations

import io
import json

import pytest

from builder.verify import verify_database
from ttt_db.game.symmetry import symmetric_images
from ttt_db.store.database import SolutionDatabase, open_database
from ttt_db.store.export import read_csv, read_jsonl, write_csv, write_jsonl


def test_a_fresh_database_verifies(db: SolutionDatabase) -> None:
    report = verify_database(db)
    assert report.ok, (report.damaged_rows, report.problems)
    assert len(report.checks) == len(set(report.checks))
    assert report.checks[:3] == [
        "every level of the core follows from the level below it",
        "positions and classes by depth (core)",
        "every row equals a fresh solve",
    ]
    lists = {f"node list {name}" for name in db.node_list_names()}
    published = {f"node list {name} size (published)" for name in ("all", "canonical", "playing", "decision")}
    assert {"file integrity", "content digest", *lists, *published} <= set(report.checks)


TAMPERING = [
    ("update ttt_positions set score = 1 where key = 0", ".........: score: found 1, expected 0"),
    ("update ttt_positions set paths = 3 where key = 7", ".......xo: paths: found 3, expected 1"),
    ("update ttt_positions set best_moves = 1 where key = 86", "....o..ox: best_moves: found [0], expected ["),
    ("update ttt_positions set value = 'win' where key = 10897", "ooxxxooxo: value: found win, expected draw"),
]
OTHER_TAMPERING = [
    (
        "update ttt_node_lists set boards = x'90', size = 0 where name = 'decision'",
        "node list decision: node list 'decision' does not match its checksum",
    ),
    (
        "update ttt_depth_counts set tree_nodes = 5 where depth = 2",
        "the counts at depth 2 do not match their checksum (table ttt_depth_counts)",
    ),
]


def test_each_tampering_is_reported(altered_copy) -> None:
    """Six independent changes in one copy (one verify run): the damaged rows lead, each named with
    its column, found before expected; then the lists and figures."""
    statements = [statement for statement, _ in TAMPERING + OTHER_TAMPERING]
    with open_database(altered_copy(*statements)) as database:
        report = verify_database(database)
    assert not report.ok
    assert report.damaged_row_count == len(TAMPERING)
    assert [line.split(":")[0] for line in report.damaged_rows] == sorted(
        (line.split(":")[0] for _, line in TAMPERING), key=lambda board: (9 - board.count("."), board)
    )
    for statement, expected in TAMPERING:
        assert any(line.startswith(expected) for line in report.damaged_rows), (statement, report.damaged_rows)
    for statement, expected in OTHER_TAMPERING:
        assert any(problem.startswith(expected) for problem in report.problems), (statement, report.problems)


def test_a_broken_symmetry_is_reported(altered_copy) -> None:
    # x's best replies to a centre o are the four corners; one corner alone breaks the symmetry
    damaged = altered_copy("update ttt_positions set best_moves = 1 where key = 81")
    with open_database(damaged) as database:
        report = verify_database(database)
    assert report.damaged_rows == ["....o....: best_moves: found [0], expected [0, 2, 6, 8]"]


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
