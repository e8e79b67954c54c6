"""Integrity on every read (issue 21): edited fields, rewritten games, emptied node lists and
random bit flips are refused by every lookup, check and export, or answered exactly as the
pristine database answers; never answered wrongly.

Some edits here forge the checksums with the library's own functions, to show that the layer
behind them (the fields against each other, the game against the rows) refuses them too."""

from __future__ import annotations

import json
import random
import sqlite3
from collections import namedtuple
from pathlib import Path
from typing import Any

import pytest

from builder.solver import solve_game
from builder.write import level_columns
from ttt_db.ais.registry import load_ai
from ttt_db.checks.report import run_checks
from ttt_db.errors import DatabaseDamagedError, DatabaseError
from ttt_db.game.definition import TICTACTOE, Game
from ttt_db.game.symmetry import canonical_board
from ttt_db.store.checksum import (
    META_CHECK_KEY,
    ROW_FIELDS,
    checksum,
    checksums,
    field_numbers,
    meta_checksum,
    row_columns,
    seed,
)
from ttt_db.store.database import open_database
from ttt_db.store.encoding import encode_keys
from ttt_db.store.tables import POSITION_COLUMNS

REBUILD = "rebuild it with `ttt-db build --force`"
EMPTY_KEY = 0  # tic-tac-toe's empty board: a draw in 9
CENTRE = TICTACTOE.key("....o....")


def _copy(source: Path, folder: Path, name: str = "copy.sqlite") -> Path:
    target = folder / name
    target.write_bytes(source.read_bytes())
    return target


def _reseal_row(conn: sqlite3.Connection, key: int, game: Game) -> None:
    """Recompute a row's checksums after an edit, as a careful forger would."""
    cursor = conn.execute(f"select {', '.join(POSITION_COLUMNS)} from ttt_positions where key = ?", (key,))
    row = namedtuple("Row", POSITION_COLUMNS)(*cursor.fetchone())
    moves = checksum(
        seed(game.name, "moves"), field_numbers(row, ("key", "status", "best_moves", "best_moves_shortest"))
    )
    whole = checksum(seed(game.name, "row"), field_numbers(row, ROW_FIELDS))
    conn.execute("update ttt_positions set moves_check = ?, row_check = ? where key = ?", (moves, whole, key))


def _reseal_meta(conn: sqlite3.Connection) -> None:
    entries = dict(conn.execute("select key, value from ttt_meta").fetchall())
    conn.execute("update ttt_meta set value = ? where key = ?", (json.dumps(meta_checksum(entries)), META_CHECK_KEY))


def _edited(source: Path, folder: Path, statement: str, *, reseal: bool, game: Game = TICTACTOE) -> Path:
    path = _copy(source, folder)
    with sqlite3.connect(path) as conn:
        assert conn.execute(statement).rowcount == 1, statement
        if reseal and "ttt_positions" in statement:
            key = int(statement.rsplit("key = ", 1)[1])
            _reseal_row(conn, key, game)
        if reseal and "ttt_meta" in statement:
            _reseal_meta(conn)
    return path


# --- the fields of a row against each other ------------------------------------------------

CONTRADICTIONS = [
    (
        f"update ttt_positions set remoteness = 0 where key = {EMPTY_KEY}",
        "remoteness 0, but the best moves leave 8 plies",
    ),
    (
        f"update ttt_positions set remoteness = 4 where key = {EMPTY_KEY}",
        "remoteness 4, but the best moves leave 8 plies",
    ),
    (f"update ttt_positions set score = -1 where key = {EMPTY_KEY}", "value 'draw' beside score -1 (o to move)"),
    (
        f"update ttt_positions set score = 1, value = 'win' where key = {EMPTY_KEY}",
        "value 'win', but the best move is a draw",
    ),
    (f"update ttt_positions set best_moves = 8 where key = {EMPTY_KEY}", "best moves [3], but the moves that keep"),
    (f"update ttt_positions set best_moves_shortest = 1 where key = {EMPTY_KEY}", "shortest best moves [0], but"),
    (
        f"update ttt_positions set sv_score = 2 where key = {EMPTY_KEY}",
        "shortest-victory score 2, but the value says 0",
    ),
    (
        f"update ttt_positions set remoteness = 1 where key = {TICTACTOE.key(canonical_board('ooo.xx...'))}",
        "score, remoteness, shortest-victory score (1, 1, 3) on a finished board",
    ),
]


@pytest.mark.parametrize(("statement", "what"), CONTRADICTIONS)
def test_a_row_whose_fields_contradict_each_other_is_refused_even_with_its_checksums_forged(
    run, db_path: Path, tmp_path: Path, statement: str, what: str
) -> None:
    damaged = _edited(db_path, tmp_path, statement, reseal=True)
    board = TICTACTOE.board_of(int(statement.rsplit("key = ", 1)[1]))
    result = run("best-moves", board, "--db", str(damaged))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.startswith(f"error: the database is damaged ({what}")
    assert result.stderr.endswith(f"row for {board!r}): {REBUILD}\n")


def test_a_row_edited_consistently_is_refused_by_its_checksums(run, db_path: Path, tmp_path: Path) -> None:
    """Best moves [3] with move values that say so: every field agrees, only the checksums know."""
    with open_database(db_path) as db:
        values = bytearray(db.reader.rows(f"select move_values from ttt_positions where key = {EMPTY_KEY}")[0][0])
    for cell in range(9):  # every move a loss in 8 but the edge a3... rather: 3 the one draw
        values[cell] = (0 + 1) << 5 | 7 if cell != 3 else values[3]
    statement = (
        f"update ttt_positions set best_moves = 8, best_moves_shortest = 8, move_values = x'{values.hex()}' "
        f"where key = {EMPTY_KEY}"
    )
    damaged = _edited(db_path, tmp_path, statement, reseal=False)
    lookup = run("best-moves", ".........", "--db", str(damaged))
    assert (lookup.exit_code, lookup.stdout) == (2, "")
    assert lookup.stderr == (
        f"error: the database is damaged (the row does not match its checksum, row for '.........'): {REBUILD}\n"
    )
    check = run("check", "perfect", "--db", str(damaged))
    assert check.exit_code == 2
    assert check.stderr == (
        "error: the database is damaged (the key, status and best moves do not match their checksum, "
        f"row for '.........'): {REBUILD}\n"
    )
    exported = run("export", "--db", str(damaged))
    assert (exported.exit_code, exported.stdout) == (2, "")


# --- the game a database solves -------------------------------------------------------------


def _rewrite_game(path: Path, game: Game, *, reseal: bool) -> None:
    rules = {"game": game.name, "rows": game.rows, "columns": game.columns, "in_a_row": game.k, "first": "o"}
    with sqlite3.connect(path) as conn:
        conn.execute("update ttt_meta set value = ? where key = 'rules'", (json.dumps(rules, sort_keys=True),))
        if reseal:
            _reseal_meta(conn)


def test_a_rewritten_game_in_the_meta_is_refused(run, db_path: Path, tmp_path: Path) -> None:
    """`3x3k3` -> `3x3k2`: answered a draw from tic-tac-toe's rows before (3x3k2 is an o win in 3)."""
    k2 = Game.parse("3x3k2")
    plain = _copy(db_path, tmp_path, "plain.sqlite")
    _rewrite_game(plain, k2, reseal=False)
    result = run("best-moves", ".........", "--game", "3x3k2", "--db", str(plain))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"error: the database is damaged (the meta entries do not match their checksum, table ttt_meta): {REBUILD}\n"
    )
    forged = _copy(db_path, tmp_path, "forged.sqlite")
    _rewrite_game(forged, k2, reseal=True)
    result = run("best-moves", ".........", "--game", "3x3k2", "--db", str(forged))
    assert (result.exit_code, result.stdout) == (2, "")
    assert "the database is damaged" in result.stderr


OTHER_GAMES = ["3x4k2", "3x4k4", "3x4k1", "4x3k3", "2x6k3", "6x2k3", "1x12k3", "3x3k3"]


@pytest.mark.parametrize("name", OTHER_GAMES)
def test_a_12_cell_database_told_it_solves_another_game_answers_nothing(
    db_3x4k3_path: Path, tmp_path: Path, name: str
) -> None:
    """The meta rewritten and its checksum forged: the rows, seeded with the game they solve,
    refuse every lookup, the best-moves table and the node lists."""
    game = Game.parse(name)
    path = _copy(db_3x4k3_path, tmp_path)
    _rewrite_game(path, game, reseal=True)
    with open_database(path) as db:
        assert db.game == game
        for read in (lambda: db.lookup(game.empty_board), db.best_moves_table, lambda: db.node_list("decision")):
            with pytest.raises(DatabaseDamagedError):
                read()


# --- node lists and counts --------------------------------------------------------------------

EMPTIED = f"x'{encode_keys([]).hex()}'"


@pytest.mark.parametrize("name", ["decision_canonical", "decision"])
@pytest.mark.parametrize("reseal", [False, True])
def test_an_emptied_node_list_stops_a_check(run, db_path: Path, tmp_path: Path, name: str, reseal: bool) -> None:
    """`check ai14s --strong` said "solved (3,191/3,191)" on an emptied `decision_canonical`, and every
    AI "solved (0/0)" on an emptied `decision`. Forged, the list's size still disagrees with the meta."""
    path = _copy(db_path, tmp_path)
    with sqlite3.connect(path) as conn:
        conn.execute(f"update ttt_node_lists set size = 0, boards = {EMPTIED} where name = '{name}'")
        if reseal:
            from ttt_db.store.checksum import blob_checksum

            check = blob_checksum("3x3k3", "list", name, 0, bytes.fromhex(EMPTIED[2:-1]))
            conn.execute("update ttt_node_lists set checksum = ? where name = ?", (check, name))
    expected = (
        f"node list {name!r} holds 0 boards, the build counted" if reseal else f"node list {name!r} does not match"
    )
    refused = 0
    for args in (["check", "ai14s", "--strong"], ["check", "ai14s", "--strong", "--canonical"], ["check", "--all"]):
        result = run(*args, "--db", str(path))
        if result.exit_code == 2:  # the checks that read the list
            refused += 1
            assert result.stdout == "", args
            assert result.stderr.startswith(f"error: the database is damaged ({expected}"), args
        else:  # the others answer exactly as the pristine database does
            assert result.output == run(*args, "--db", str(db_path)).output, args
    assert refused >= 1


def test_changed_depth_counts_are_refused(run, db_path: Path, tmp_path: Path) -> None:
    path = _edited(db_path, tmp_path, "update ttt_depth_counts set tree_nodes = 5 where depth = 2", reseal=False)
    result = run("info", "--db", str(path))
    assert (result.exit_code, result.stdout) == (2, "")
    assert "the counts at depth 2 do not match their checksum" in result.stderr


# --- the checksums themselves -----------------------------------------------------------------


@pytest.mark.parametrize("path_fixture", ["db_path", "db_3x4k3_path"])
def test_the_two_forms_of_the_row_checksum_agree_with_each_other_and_the_builder(
    request: pytest.FixtureRequest, path_fixture: str
) -> None:
    """Plain Python (a lookup), numpy over read rows (a check) and numpy over the solver's arrays
    (the build) give the same number for every row; a row's checksum changes with each field."""
    with open_database(request.getfixturevalue(path_fixture)) as db:
        game = db.game
        rows = db.reader.rows(f"select {', '.join(POSITION_COLUMNS)} from ttt_positions order by depth, key")
    start = seed(game.name, "row")
    plain = [checksum(start, field_numbers(row, ROW_FIELDS)) for row in rows]
    assert plain == checksums(start, row_columns(rows, ROW_FIELDS, game.cells)).tolist()
    solution = solve_game(game)
    built = [value for depth in range(len(solution.levels)) for value in level_columns(solution, depth)[-1]]
    assert plain == built == [row.row_check for row in rows]
    first = rows[len(rows) // 2]
    for index in range(len(ROW_FIELDS)):
        numbers = field_numbers(first, ROW_FIELDS)
        numbers[index + (index > ROW_FIELDS.index("move_values"))] ^= 1
        assert checksum(start, numbers) != first.row_check


# --- random damage --------------------------------------------------------------------------


def _answers(path: Path) -> Any:
    """Everything a lookup, a check and an export read: every position's record, every best-move
    list, and on tic-tac-toe a check report."""
    with open_database(path) as db:
        records = db.load_all()
        table = dict(db.best_moves_table())
        lists = {name: db.node_list_keys(name) for name in ("decision", "decision_canonical")}
        report = run_checks(load_ai("ai14s", game=db.game), db).to_document() if db.game == TICTACTOE else None
    return records, table, lists, report


@pytest.mark.parametrize(("path_fixture", "flips"), [("db_path", 80), ("db_3x4k3_path", 3)])
def test_random_bit_flips_are_refused_or_change_nothing(
    request: pytest.FixtureRequest, tmp_path: Path, path_fixture: str, flips: int
) -> None:
    source: Path = request.getfixturevalue(path_fixture)
    pristine = _answers(source)
    data = source.read_bytes()
    chance = random.Random(21)
    refused = 0
    for attempt in range(flips):
        damaged = bytearray(data)
        offset = chance.randrange(100, len(damaged))  # past SQLite's file header
        damaged[offset] ^= 1 << chance.randrange(8)
        path = tmp_path / f"flip-{attempt}.sqlite"
        path.write_bytes(bytes(damaged))
        try:
            answers = _answers(path)
        except DatabaseError:
            refused += 1
        else:
            assert answers == pristine, f"byte {offset} flipped: a wrong answer"
        path.unlink()
    assert refused >= flips // 4  # most of the file is rows: many flips land in one
