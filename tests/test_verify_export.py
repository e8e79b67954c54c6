"""`verify` finds tampering; `export` round-trips into the values the library returns."""

from __future__ import annotations

import io
import json
import sqlite3
from pathlib import Path

import pytest
from forging import forge_code, forge_extras

from ttt_db.game.definition import TICTACTOE
from ttt_db.game.symmetry import symmetric_images
from ttt_db.outputs.export import read_csv, read_jsonl, write_csv, write_jsonl
from ttt_db.ranked.codes import code_of
from ttt_db.store import published
from ttt_db.store.database import SolutionDatabase, open_database
from ttt_db.store.verify import verify_database


def test_a_fresh_database_verifies(db: SolutionDatabase) -> None:
    report = verify_database(db)
    assert report.ok, (report.damaged_rows, report.problems)
    assert len(report.checks) == len(set(report.checks))
    assert report.checks[:2] == [
        "every level of the core follows from the level below it",
        "every class's odds and paths follow from the core",
    ]
    published = {f"node list {name} size (published)" for name in ("all", "canonical", "playing", "decision")}
    assert {"file integrity", "content digest", "tree nodes by depth (published)", *published} <= set(report.checks)


def test_each_tampering_is_reported(db_path: Path, tmp_path: Path) -> None:
    """Changes resealed with their chunks' checksums, in one copy (one verify run): each named by
    its board, the stored value before the one the core gives, the deepest first (a forged code's
    three parents in play disagree with it too); then the depth counts."""
    damaged = tmp_path / "tampered.sqlite"
    damaged.write_bytes(db_path.read_bytes())
    forge_code(damaged, "ooxxxooxo", code_of("win", 0), TICTACTOE)  # a full board, drawn
    forge_extras(damaged, ".......xo", "paths", 3, TICTACTOE)  # reached one way
    forge_extras(damaged, "....o..ox", "o_wins", 0, TICTACTOE)
    with sqlite3.connect(damaged) as conn:
        conn.execute("update ttt_depth_counts set tree_nodes = 5 where depth = 2")
    with open_database(damaged) as database:
        report = verify_database(database)
    assert not report.ok and report.damaged_row_count == 1 + 3 + 2
    assert report.damaged_rows[0].startswith(
        f"{canonical_slot_board('ooxxxooxo')}: core code win in 0, its children give draw in 0"
    )
    assert any(
        line.startswith(f"{canonical_slot_board('.......xo')}: extras ") and "'paths': 3" in line
        for line in report.damaged_rows
    )
    assert any(
        line.startswith(f"{canonical_slot_board('....o..ox')}: extras {{'o_wins': 0, ") for line in report.damaged_rows
    )
    assert "the counts at depth 2 do not match their checksum (table ttt_depth_counts)" in report.problems


def canonical_slot_board(board: str) -> str:
    """The board of the class's representative, as verify names it."""
    from ttt_db.ranked.slots import board_of_slot, representative

    depth, slot, _ = representative(board, TICTACTOE)
    return board_of_slot(TICTACTOE, depth, slot)


def _library_record(db: SolutionDatabase, board: str) -> dict[str, object]:
    position = db.lookup(board)
    return {
        "board": position.cells,
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
        "orbit": len(set(symmetric_images(position.cells, TICTACTOE))),
        "game": "3x3k3",
    }


@pytest.mark.parametrize(("write", "read"), [(write_jsonl, read_jsonl), (write_csv, read_csv)])
def test_export_round_trips_into_library_values(db: SolutionDatabase, write, read) -> None:
    stream = io.StringIO()
    write(db.all_positions(), stream)
    stream.seek(0)
    records = list(read(stream))
    assert len(records) == published.LIST_SIZES["all"]
    assert len({r["board"] for r in records}) == published.LIST_SIZES["all"]
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
