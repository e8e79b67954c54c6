"""The plain tables (issue 36): a row per class and the named lists, readable with sqlite3 alone,
held to tests/reference.py on tic-tac-toe and on a rectangle (other symmetries), held to the core
by verify, written where the game is small or where asked."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import msgpack
import pytest
import reference
from forging import reseal_meta

from ttt_db.build import build_database
from ttt_db.errors import BuildRefusedError
from ttt_db.game.definition import Game
from ttt_db.store.core import NODE_LISTS
from ttt_db.store.database import open_database
from ttt_db.store.plain import TableHash
from ttt_db.store.tables import POSITION_COLUMNS
from ttt_db.store.verify import verify_database


def _rows(path: Path, sql: str, *params: object) -> list[tuple[object, ...]]:
    with sqlite3.connect(path) as conn:
        return conn.execute(sql, params).fetchall()


def _mover_value(rules: reference.Rules, board: str) -> tuple[str, int]:
    solved = reference.solver(rules)(board)
    sign = 1 if rules.mover(board) == "o" else -1
    return {1: "win", 0: "draw", -1: "loss"}[sign * solved.score], solved.remoteness


@pytest.mark.parametrize("name", ["3x3k3", "3x4k3"])
def test_every_class_is_a_row_as_the_reference_solves_it(name: str, db_path: Path, db_3x4k3_path: Path) -> None:
    path = db_path if name == "3x3k3" else db_3x4k3_path
    rules = reference.TICTACTOE if name == "3x3k3" else reference.Rules(3, 4, 3)
    canonical = {min(rules.images(board)) for board in reference.reachable(rules)}
    rows = _rows(path, "SELECT * FROM ttt_positions ORDER BY key")
    assert {row[1] for row in rows} == canonical and len(rows) == len(canonical)
    solve = reference.solver(rules)
    for key, board, depth, to_move, status, score, value, remoteness, orbit, best, shortest, moves in rows:
        won = rules.winner(board)
        playing = not rules.finished(board)
        expected_status = "playing" if playing else won or "draw"
        expected_value = _mover_value(rules, board)[0] if playing else "draw" if won is None else "loss"
        assert (depth, to_move, status, score, value, remoteness, orbit) == (
            rules.cells - board.count("."),
            rules.mover(board) if playing else None,
            expected_status,
            solve(board).score,
            expected_value,
            solve(board).remoteness,
            len(rules.images(board)),
        ), board
        assert key == Game.parse(name).key(board)
        assert msgpack.unpackb(best) == (list(reference.best_moves(board, rules)) if playing else [])
        assert msgpack.unpackb(shortest) == (list(reference.best_moves(board, rules, shortest=True)) if playing else [])
        children = rules.children(board) if playing else []
        flipped = {"win": "loss", "loss": "win", "draw": "draw"}
        assert msgpack.unpackb(moves) == [
            [move, flipped[_mover_value(rules, child)[0]], _mover_value(rules, child)[1]] for move, child in children
        ], board


def test_one_select_answers_which_boards_at_a_depth_lose_for_the_mover(db_path: Path) -> None:
    rules = reference.TICTACTOE
    for depth in range(10):
        expected = {
            min(rules.images(board))
            for board in reference.reachable(rules)
            if rules.cells - board.count(".") == depth
            and not rules.finished(board)
            and _mover_value(rules, board)[0] == "loss"
        }
        found = _rows(
            db_path,
            "SELECT board FROM ttt_positions WHERE depth = ? AND value = 'loss' AND to_move IS NOT NULL",
            depth,
        )
        assert {board for (board,) in found} == expected, depth
    assert any(_rows(db_path, "SELECT 1 FROM ttt_positions WHERE depth = 3 AND value = 'loss'"))


@pytest.mark.parametrize("name", ["3x3k3", "3x4k3"])
def test_the_node_lists_are_the_librarys(name: str, db_path: Path, db_3x4k3_path: Path) -> None:
    path = db_path if name == "3x3k3" else db_3x4k3_path
    game = Game.parse(name)
    stored: dict[str, list[int]] = {}
    for list_name, depth, keys in _rows(path, "SELECT name, depth, keys FROM ttt_node_lists ORDER BY name, depth"):
        unpacked = msgpack.unpackb(keys)
        assert unpacked == sorted(unpacked)
        assert all(game.cells - game.board_of(key).count(".") == depth for key in unpacked)
        stored.setdefault(list_name, []).extend(unpacked)
    assert set(stored) == set(NODE_LISTS)
    with open_database(path) as db:
        for list_name in NODE_LISTS:
            assert stored[list_name] == db.node_list_keys(list_name), list_name
    rules = reference.TICTACTOE if name == "3x3k3" else reference.Rules(3, 4, 3)
    assert len(stored["all"]) == len(reference.reachable(rules))
    assert len(stored["decision"]) == len(reference.decision_boards(rules))


def _a_drawn_board(db_path: Path) -> str:
    (board,) = _rows(db_path, "SELECT min(board) FROM ttt_positions WHERE depth = 4 AND value = 'draw'")[0]
    assert isinstance(board, str)
    return board


def test_verify_names_a_damaged_row_and_a_missing_list(altered_copy, db_path: Path) -> None:
    board = _a_drawn_board(db_path)
    damaged = altered_copy(
        f"UPDATE ttt_positions SET value = 'win' WHERE board = '{board}'",
        "DELETE FROM ttt_node_lists WHERE name = 'decision' AND depth = 4",
    )
    with open_database(damaged, recorded=False) as db:
        report = verify_database(db)
    assert not report.ok
    assert "table ttt_positions, {'key': " in report.damaged_rows[0]
    assert f"'board': '{board}'}}: value 'win' where the core gives 'draw'" in report.damaged_rows[0]
    assert "table ttt_node_lists: no row for {'name': 'decision', 'depth': 4}" in report.damaged_rows
    assert any("rows and hash of ttt_positions" in problem for problem in report.problems)


def test_verify_holds_a_row_forged_with_the_meta_resealed(altered_copy, db_path: Path) -> None:
    """A forger who rewrites a row, the meta's hash of its table, the content digest and the
    meta's checksum is still caught: the row is held to the core."""
    board = _a_drawn_board(db_path)
    forged = altered_copy(f"UPDATE ttt_positions SET remoteness = remoteness + 2 WHERE board = '{board}'")
    with sqlite3.connect(forged) as conn:
        counted = TableHash("ttt_positions")
        rows = conn.execute(f"SELECT {', '.join(POSITION_COLUMNS)} FROM ttt_positions ORDER BY depth, key")
        for _ in counted.hashed(rows):
            pass
        entries = dict(conn.execute("SELECT key, value FROM ttt_meta").fetchall())
        plain = json.loads(entries["plain_tables"])
        assert plain["ttt_positions"]["hash"] != counted.entry()["hash"]
        plain["ttt_positions"] = counted.entry()
        entries["plain_tables"] = json.dumps(plain, sort_keys=True)
        reseal_meta(conn, entries)
    with open_database(forged, recorded=False) as db:
        report = verify_database(db)
    assert [line for line in report.damaged_rows if board in line and "remoteness" in line]
    assert report.problems == []


def test_a_larger_game_has_them_only_when_asked_and_never_over_16_cells(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("ttt_db.store.plain.TABLES_DEFAULT_CELLS", 5)  # 2x3k3 is then over the default
    game = Game.parse("2x3k3")
    plain = tmp_path / "plain.sqlite"
    build_database(plain, game=game)
    assert _rows(plain, "SELECT count(*) FROM ttt_positions") == [(0,)]
    with open_database(plain) as db:
        assert db.meta()["format"]["tables"] is False and "plain_tables" not in db.meta()
    asked = tmp_path / "asked.sqlite"
    build_database(asked, game=game, tables=True)
    with open_database(asked) as db:
        classes = db.meta()["figures"]["canonical_positions"]
        assert verify_database(db).ok
    assert _rows(asked, "SELECT count(*) FROM ttt_positions") == [(classes,)]
    with pytest.raises(BuildRefusedError, match="at most 16"):
        build_database(tmp_path / "big.sqlite", game=Game.parse("3x6k3"), tables=True)
    assert not (tmp_path / "big.sqlite").exists()
    small = tmp_path / "small.sqlite"
    build_database(small, tables=False)
    assert _rows(small, "SELECT count(*) FROM ttt_node_lists") == [(0,)]


def test_the_documented_queries_print_what_the_docs_show(db_path: Path) -> None:
    text = (Path(__file__).parent.parent / "docs" / "database.md").read_text()
    block = text[text.index("```console\n$ sqlite3 data/ttt-db.sqlite") :]
    block = block[len("```console\n") : block.index("```", 4)]
    commands = [line for line in block.splitlines() if line.startswith("$ sqlite3 ")]
    assert len(commands) == 2
    for command in commands:
        query = command.split('"')[1]
        shown = block[block.index(command) + len(command) + 1 :].split("$ ")[0].split("\n")
        printed = ["|".join(str(value) for value in row) for row in _rows(db_path, query)]
        assert printed == [line for line in shown if line], query
    rules = reference.TICTACTOE
    in_play = [board for board in reference.reachable(rules) if not rules.finished(board)]
    by_value: dict[str, int] = {}
    for board in in_play:
        value = _mover_value(rules, board)[0]
        by_value[value] = by_value.get(value, 0) + 1
    grouped = _rows(db_path, commands[1].split('"')[1])
    assert {value: positions for value, _, positions in grouped} == by_value


def test_info_says_whether_a_file_has_them(run, db_path: Path, tmp_path: Path) -> None:
    classes = len(_rows(db_path, "SELECT key FROM ttt_positions"))
    lists = len(_rows(db_path, "SELECT name FROM ttt_node_lists"))
    said = run("info").stdout
    assert f"plain tables:   ttt_node_lists {lists:,} rows, ttt_positions {classes:,} rows" in said
    bare = tmp_path / "bare.sqlite"
    assert run("build", "-q", "--no-tables", "--db", str(bare)).exit_code == 0
    assert "plain tables:   none (build --tables writes them" in run("info", "--db", str(bare)).stdout
