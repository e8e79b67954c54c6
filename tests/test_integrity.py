"""Integrity on every read: resealed codes that contradict their children, rewritten games,
changed counts and random bit flips are refused by every lookup, check and export, or answered
exactly as the pristine database answers; never answered wrongly.

Some edits here forge the checksums with the library's own functions (tests/forging.py), to
show that the layer behind them (a position's moves against its own value, the game against the
chunks, verify) refuses them too."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from forging import forge_code, forge_extras, reseal_blob, zstd_bomb

from ttt_db.ais.registry import load_ai
from ttt_db.checks.report import run_checks
from ttt_db.errors import DatabaseDamagedError, DatabaseError
from ttt_db.game.definition import TICTACTOE, Game
from ttt_db.ranked.codes import code_of
from ttt_db.ranked.slots import level_slots
from ttt_db.store.checksum import META_CHECK_KEY, meta_checksum
from ttt_db.store.database import open_database

REBUILD = "rebuild it with `ttt-db build --force`"


def _copy(source: Path, folder: Path, name: str = "copy.sqlite") -> Path:
    target = folder / name
    target.write_bytes(source.read_bytes())
    return target


def _reseal_meta(conn: sqlite3.Connection) -> None:
    entries = dict(conn.execute("select key, value from ttt_meta").fetchall())
    conn.execute("update ttt_meta set value = ? where key = ?", (json.dumps(meta_checksum(entries)), META_CHECK_KEY))


# --- a position against its own moves --------------------------------------------------------

CONTRADICTIONS = [
    (".........", code_of("draw", 4), "value draw in 4, but its moves give draw in 9, board '.........'"),
    (".........", code_of("win", 9), "value win in 9, but its moves give draw in 9, board '.........'"),
    ("ooo.xx...", code_of("draw", 0), "value draw in 0 for a board o, board 'ooo.xx...'"),
]


@pytest.mark.parametrize(("board", "code", "what"), CONTRADICTIONS)
def test_a_code_that_contradicts_its_moves_is_refused_even_with_its_chunk_resealed(
    run, db_path: Path, tmp_path: Path, board: str, code: int, what: str
) -> None:
    damaged = _copy(db_path, tmp_path)
    forge_code(damaged, board, code, TICTACTOE)
    result = run("best-moves", board, "--db", str(damaged))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"error: the database is damaged ({what}): {REBUILD}\n"


def test_resealed_extras_that_do_not_add_up_are_refused(run, db_path: Path, tmp_path: Path) -> None:
    damaged = _copy(db_path, tmp_path)
    forge_extras(damaged, "....o....", "draws", 0, TICTACTOE)
    result = run("best-moves", "....o....", "--json", "--db", str(damaged))
    assert (result.exit_code, result.stdout) == (2, "")
    assert "not 40,320 move orders, table ttt_extras, level 1 chunk 0" in result.stderr


# --- the game against the content -------------------------------------------------------------


def _rewrite_game(path: Path, game: Game, *, reseal: bool) -> None:
    rules = {"game": game.name, "rows": game.rows, "columns": game.columns, "in_a_row": game.k, "first": "o"}
    with sqlite3.connect(path) as conn:
        conn.execute("update ttt_meta set value = ? where key = 'rules'", (json.dumps(rules, sort_keys=True),))
        if reseal:
            _reseal_meta(conn)


def test_a_rewritten_game_in_the_meta_is_refused(run, db_path: Path, tmp_path: Path) -> None:
    """`3x3k3` -> `3x3k2`: the chunks' checksums are seeded with the game they solve."""
    k2 = Game.parse("3x3k2")
    plain = _copy(db_path, tmp_path, "plain.sqlite")
    _rewrite_game(plain, k2, reseal=False)
    result = run("info", "--game", "3x3k2", "--db", str(plain))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"error: the database is damaged (the meta entries do not match their checksum, table ttt_meta): {REBUILD}\n"
    )
    forged = _copy(db_path, tmp_path, "forged.sqlite")
    _rewrite_game(forged, k2, reseal=True)
    result = run("best-moves", ".........", "--game", "3x3k2", "--db", str(forged))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        "error: the database is damaged (a chunk of the core does not match its checksum, "
        f"table ttt_core, level 0 chunk 0): {REBUILD}\n"
    )


OTHER_GAMES = ["3x4k2", "3x4k4", "3x4k1", "4x3k3", "2x6k3", "6x2k3", "1x12k3"]


@pytest.mark.parametrize("name", OTHER_GAMES)
def test_a_12_cell_database_told_it_solves_another_game_answers_nothing(
    db_3x4k3_path: Path, tmp_path: Path, name: str
) -> None:
    """The meta rewritten and its checksum forged: the chunks, seeded with the game they solve,
    refuse every lookup, the best-moves table and the node lists."""
    game = Game.parse(name)
    path = _copy(db_3x4k3_path, tmp_path)
    _rewrite_game(path, game, reseal=True)
    with open_database(path) as db:
        assert db.game == game
        for read in (lambda: db.lookup(game.empty_board), db.best_moves_table, lambda: db.node_list("decision")):
            with pytest.raises(DatabaseDamagedError):
                read()


def test_changed_depth_counts_are_refused(run, db_path: Path, tmp_path: Path) -> None:
    path = _copy(db_path, tmp_path)
    with sqlite3.connect(path) as conn:
        conn.execute("update ttt_depth_counts set tree_nodes = 5 where depth = 2")
    result = run("info", "--db", str(path))
    assert (result.exit_code, result.stdout) == (2, "")
    assert "the counts at depth 2 do not match their checksum" in result.stderr


# --- bombs and damaged schema text ---------------------------------------------------------

BOMB_PROBE = """
import sys
from ttt_db.errors import DatabaseDamagedError
from ttt_db.store.database import open_database
with open_database(sys.argv[1]) as db:
    fetched = []
    real = db.core._fetch_once
    db.core._fetch_once = lambda *args: fetched.append(args) or real(*args)
    for _ in range(3):
        try:
            db.lookup("x........")
        except DatabaseDamagedError as refused:
            said = str(refused)
print(said)
peak_kb = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(len(fetched), peak_kb // 1024)  # this process's own peak (ru_maxrss keeps the forking parent's)
"""


def test_a_resealed_zstd_bomb_is_refused_without_decompressing_it_and_only_once(db_path: Path, tmp_path: Path) -> None:
    """A small chunk whose frame declares a gigabyte: zstandard would allocate it all before
    reading a byte. It is refused from its header, and the refusal is kept for the handle."""
    import subprocess
    import sys

    path = _copy(db_path, tmp_path)
    declared = 1 << 30
    with sqlite3.connect(path) as conn:
        reseal_blob(conn, "ttt_core", "codes", TICTACTOE, 1, 0, zstd_bomb(declared))
    probe = subprocess.run([sys.executable, "-c", BOMB_PROBE, str(path)], capture_output=True, text=True, check=True)
    said, counts = probe.stdout.splitlines()
    fetched, peak_mib = map(int, counts.split())
    assert said == (
        f"the database is damaged (a chunk of the core is refused: its frame declares {declared:,} bytes, "
        f"not {level_slots(TICTACTOE.cells, 1)}, table ttt_core, level 1 chunk 0): {REBUILD}"
    )
    assert fetched == 1
    assert peak_mib < 256  # the declared gigabyte was never allocated


def _used_bytes(data: bytes, page: int, page_size: int) -> list[int]:
    """The offsets of a b-tree page's header, cell pointers and cells (not its free gap)."""
    base = (page - 1) * page_size
    header = base + (100 if page == 1 else 0)
    cells = int.from_bytes(data[header + 3 : header + 5], "big")
    pointers_end = header + (12 if data[header] in (2, 5) else 8) + 2 * cells
    content = base + (int.from_bytes(data[header + 5 : header + 7], "big") or 65536)
    return [*range(header, pointers_end), *range(content, base + page_size)]


def test_every_byte_of_the_schema_and_the_meta_damaged_is_refused_or_changes_nothing(
    db_path: Path, tmp_path: Path
) -> None:
    """Each byte of every page holding the schema (its CREATE statements) and the meta entries,
    its high bit flipped: a lookup and the meta answer as before or raise one of ttt-db's errors (exit 2),
    never another exception (exit 3, "a bug in ttt-db")."""
    from ttt_db.errors import TttDbError

    data = db_path.read_bytes()
    with sqlite3.connect(db_path) as conn:
        page_size = conn.execute("pragma page_size").fetchone()[0]
        pages = [
            page for (page,) in conn.execute("select pageno from dbstat where name in ('sqlite_schema', 'ttt_meta')")
        ]
    with open_database(db_path) as db:
        pristine = (db.lookup("x...o...."), db.meta())
    offsets = sorted({offset for page in pages for offset in _used_bytes(data, page, page_size)})
    assert len(offsets) > 1000
    path = tmp_path / "fuzzed.sqlite"
    refused = 0
    for offset in offsets:
        damaged = bytearray(data)
        damaged[offset] ^= 0x80
        path.write_bytes(bytes(damaged))
        try:
            with open_database(path) as db:
                answers = (db.lookup("x...o...."), db.meta())
        except TttDbError:
            refused += 1
        else:
            assert answers == pristine, f"byte {offset} flipped: a wrong answer"
    assert refused > len(offsets) // 2


# --- random damage --------------------------------------------------------------------------


def _answers(path: Path) -> Any:
    """Everything a lookup, a check and an export read: every canonical position, every best-move
    list, the decision lists, and on tic-tac-toe a check report."""
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
    assert refused >= flips // 20  # most of a 3x3 file is SQLite's own pages: a few flips land in a chunk


def test_a_forged_code_resealed_is_never_used_by_a_check(run, db_path: Path, tmp_path: Path) -> None:
    """ai14s plays b2 at `......o.x`, a draw where a1, c1 and a2 win: forge the code after its move
    into an x loss, resealed, and its failure would vanish; the check holds every code to its
    children's and refuses the database instead (naming the first board, shallowest first, whose
    code its children contradict)."""
    forged = _copy(db_path, tmp_path, "forged.sqlite")
    forge_code(forged, "....o.o.x", code_of("loss", 4), TICTACTOE)
    result = run("check", "ai14s", "--strong", "--db", str(forged))
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith("error: the database is damaged (") and ", its children give " in result.stderr


def test_a_meta_total_that_contradicts_the_core_is_refused(run, db_path: Path, tmp_path: Path) -> None:
    forged = _copy(db_path, tmp_path, "total.sqlite")
    with sqlite3.connect(forged) as conn:
        figures = json.loads(conn.execute("select value from ttt_meta where key = 'figures'").fetchone()[0])
        figures["decision"] += 1
        conn.execute("update ttt_meta set value = ? where key = 'figures'", (json.dumps(figures),))
        _reseal_meta(conn)
    result = run("check", "ai14s", "--strong", "--db", str(forged))
    assert result.exit_code == 2
    assert "the meta's 3,192 decision positions, where the core holds 3,191" in result.stderr


def test_verify_reports_a_damaged_index_page_and_exits_1(run, db_path: Path, tmp_path: Path) -> None:
    """A page the engine cannot read through (the core's index) is reported, not an exit 2."""
    damaged = _copy(db_path, tmp_path, "index.sqlite")
    with sqlite3.connect(damaged) as conn:
        page_size = conn.execute("pragma page_size").fetchone()[0]
        root = conn.execute("select rootpage from sqlite_master where name = 'sqlite_autoindex_ttt_core_1'").fetchone()
    data = bytearray(damaged.read_bytes())
    start = (root[0] - 1) * page_size
    content = int.from_bytes(data[start + 5 : start + 7], "big")  # where the page's cells begin
    for offset in range(start + content, start + min(content + 40, page_size)):
        data[offset] ^= 0x55
    damaged.write_bytes(bytes(data))
    result = run("verify", "--db", str(damaged))
    assert result.exit_code == 1, result.output
    assert "damaged row: " in result.stdout  # the chunks read past the broken index are named
    assert "database disk image is malformed" in result.stdout  # and the engine's own check says why
    assert result.stdout.rstrip().splitlines()[-1].startswith("FAILED: ")


@pytest.mark.parametrize(
    ("child", "code", "asked"),
    [("o........", code_of("win", 7), "........."), (".x..o....", code_of("draw", 7), "....o....")],
)
@pytest.mark.parametrize("command", ["best-moves", "show"])
def test_a_lookup_holds_each_childs_code_to_its_own_children_before_using_it(
    run, db_path: Path, tmp_path: Path, child: str, code: int, asked: str, command: str
) -> None:
    """A child's code resealed so that the board asked still holds to it (the corners "lose"; the
    edges "draw"): the lookup refuses instead of recommending by it."""
    forged = _copy(db_path, tmp_path, "child.sqlite")
    forge_code(forged, child, code, TICTACTOE)
    result = run(command, asked, "--db", str(forged))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.startswith("error: the database is damaged (value ") and "but its moves give" in result.stderr


def test_an_export_prints_no_record_whose_moves_come_from_a_level_that_does_not_hold(
    run, db_path: Path, tmp_path: Path
) -> None:
    """A level-3 code forged, resealed: level 2 no longer holds to it, so the records of level 1,
    whose moves' values are level 2's codes, are never printed (the refusal comes first)."""
    forged = _copy(db_path, tmp_path, "ahead.sqlite")
    forge_code(forged, "....o.o.x", code_of("loss", 4), TICTACTOE)
    result = run("export", "--db", str(forged))
    assert result.exit_code == 2 and "table ttt_core, level 2 slot" in result.stderr
    printed = [json.loads(line)["board"] for line in result.stdout.splitlines() if line.startswith("{")]
    assert printed == ["........."]  # level 0's moves are level 1's codes, which hold


@pytest.mark.parametrize("args", [["export"], ["check", "perfect", "--weak"]])
def test_no_bulk_read_serves_a_forged_code(run, db_path: Path, tmp_path: Path, args: list[str]) -> None:
    forged = _copy(db_path, tmp_path, "bulk.sqlite")
    forge_code(forged, "....o.o.x", code_of("loss", 4), TICTACTOE)
    result = run(*args, "--db", str(forged))
    assert result.exit_code == 2 and '"....o.o.x"' not in result.stdout  # an export stops before it
    assert result.stderr.startswith("error: the database is damaged (") and ", its children give " in result.stderr
