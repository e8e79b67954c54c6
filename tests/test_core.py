"""The ranked core (issues 25, 40): dense slots, the level step over canonical sets (interpreted
and compiled), the stored chunks, a game stored as its core alone, damage to a chunk, and a build
stopped part-way and resumed.

The values are held to the tests' own solver (tests/reference.py), the slots to the scalar
arithmetic of ttt_db.ranked.slots; the benchmark holds the levels of the larger games to the C
floor (bench/mnk_level.c)."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
import reference
import zstandard
from forging import reseal_blob

import ttt_db.build.levels
from ttt_db.build import build_database
from ttt_db.errors import NotStoredError, UnknownGameError
from ttt_db.game.definition import TICTACTOE, Game
from ttt_db.ranked import backend
from ttt_db.ranked.codes import value_of_code
from ttt_db.ranked.layout import chunks_of_level, level_from_chunks
from ttt_db.ranked.slots import game_from_name, level_slots
from ttt_db.ranked.step import solve_core
from ttt_db.ranked.tables import RankedTables
from ttt_db.store import core as core_module
from ttt_db.store import extras, published
from ttt_db.store.database import SolutionDatabase, open_database
from ttt_db.store.location import DatabaseLocation

REBUILD = "rebuild it with `ttt-db build --force`"
BACKENDS = {"interpreted": backend.interpreted, "compiled": backend.compiled}


@pytest.mark.parametrize("kernel", BACKENDS)
@pytest.mark.parametrize("name", ["3x4k3", "4x3k3", "3x3k3"])
def test_a_level_taken_back_from_its_stored_chunks_is_the_solved_level(name: str, kernel: str) -> None:
    """Every board of a canonical set gets its class's code back from the representatives alone."""
    tables = RankedTables(Game.parse(name), BACKENDS[kernel]())
    for level, _ in solve_core(tables):
        chunks = [
            (number, None if data is None else bytes(data)) for number, data in chunks_of_level(tables, level, 4096)
        ]
        taken = level_from_chunks(tables, level.depth, chunks, 4096)
        assert bytes(taken.level.codes) == bytes(level.codes) and taken.damaged_count == 0, level.depth


def test_the_compiled_kernels_load_without_scipys_linear_algebra_which_stays_importable() -> None:
    """numba imports SciPy's BLAS as its array functions load, for inner products no kernel
    computes: the backend keeps that import out of every compiled game's start."""
    pytest.importorskip("numba", reason="numba is not installed (a dependency of ttt-db)")
    pytest.importorskip(
        "scipy.linalg", reason="SciPy is not installed, so there is no BLAS import to keep out (no extra has it)"
    )
    code = (
        "import sys; from ttt_db.game.definition import Game; from ttt_db.ranked.tables import RankedTables; "
        "from ttt_db.ranked import backend; "
        "tables = RankedTables(Game.parse('3x3k3'), backend.compiled()); tables.level(4); "
        "print('scipy.linalg' in sys.modules, end=' '); "
        "import scipy.linalg.cython_blas; print('scipy.linalg' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "True"]


@pytest.fixture(scope="module")
def core_only_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Tic-tac-toe stored as a game over EXTRAS_MAX_CELLS cells is: the ranked core alone."""
    path = tmp_path_factory.mktemp("core-only") / "core.sqlite"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(extras, "EXTRAS_MAX_CELLS", 8)
        build_database(path)
    return path


def test_a_game_stored_as_its_core_alone_answers_every_board_as_with_its_extras(
    core_only_path: Path, db: SolutionDatabase, monkeypatch: pytest.MonkeyPatch
) -> None:
    boards = [p.cells for p in db.all_positions()]
    swapped = [board.translate(str.maketrans("ox", "xo")) for board in boards if board.count("o") > board.count("x")]
    told = [db.lookup(board) for board in boards + swapped]  # x-first boards too
    monkeypatch.setattr(extras, "EXTRAS_MAX_CELLS", 8)
    with open_database(core_only_path) as core:
        assert not core.has_extras
        for position in told:
            assert core.lookup(position.cells, first=position.first) == replace(position, playout=None, paths=None)
        with pytest.raises(NotStoredError, match="keeps the ranked core alone"):
            core.node_list("decision")


def test_a_core_reader_that_forgets_its_probes_answers_the_same(
    core_only_path: Path, db: SolutionDatabase, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The values a core reader remembers (`CoreReader.value_of`) are bounded: with room for three
    boards it forgets them over and over, and every answer stays the one with extras."""
    told = [db.lookup(p.cells) for p in db.all_positions()][::5]
    monkeypatch.setattr(extras, "EXTRAS_MAX_CELLS", 8)
    monkeypatch.setattr(core_module, "PROBED_BOARDS", 3)
    with open_database(core_only_path) as core:
        for position in told:
            assert core.lookup(position.cells) == replace(position, playout=None, paths=None)
            assert len(core.core._probed) <= 3


def test_the_commands_on_a_core_only_database(run, core_only_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(extras, "EXTRAS_MAX_CELLS", 8)
    where = ["--db", str(core_only_path)]
    assert run("best-moves", "ox..x....", *where).stdout.splitlines()[-1] == "best moves: 7 (b3)"
    verified = run("verify", *where)
    assert verified.exit_code == 0 and verified.stdout.startswith("ok: "), verified.stdout
    info = run("info", *where).stdout
    assert (
        f"positions:           {published.LIST_SIZES['all']:,} ({published.LIST_SIZES['canonical']} up to symmetry)"
        in info
        and "tree nodes" in info
    )  # the depth table's head
    checked = run("check", "ai14s", "--strong", *where)
    from ttt_db.ais.registry import load_ai

    ai14s = reference.strong_check_of(load_ai("ai14s").play)
    assert checked.exit_code == 1 and f"{ai14s.correct:,}/{ai14s.total:,} decision positions" in checked.stdout
    exported = run("export", *where)
    assert exported.stderr == (
        f"exporting {published.LIST_SIZES['all']:,} positions of 3x3k3, streamed from its core by depth "
        "(without random-play odds and paths)\n"
    )
    records = [json.loads(line) for line in exported.stdout.splitlines()]
    assert (
        len(records) == published.LIST_SIZES["all"] and records[0]["board"] == "........." and records[-1]["depth"] == 9
    )
    assert {record["playout"] for record in records} == {None}
    refused = run("info", "--json", *where)
    assert json.loads(refused.stdout)["figures"]["decision"] == published.LIST_SIZES["decision"]


def _core_chunk(path: Path, depth: int) -> bytes:
    with sqlite3.connect(path) as conn:
        return conn.execute("select codes from ttt_core where depth = ? and chunk = 0", (depth,)).fetchone()[0]


def _reseal_chunk(path: Path, depth: int, codes: bytes) -> None:
    """A level's first chunk replaced by `codes`, everything above it resealed, as a careful forger would."""
    with sqlite3.connect(path) as conn:
        reseal_blob(conn, "ttt_core", "codes", TICTACTOE, depth, 0, zstandard.ZstdCompressor().compress(codes))


def test_a_damaged_chunk_is_refused_by_lookups_and_named_by_verify(run, db_path: Path, tmp_path: Path) -> None:
    damaged = tmp_path / "chunk.sqlite"
    damaged.write_bytes(db_path.read_bytes())
    blob = bytearray(_core_chunk(damaged, 1))
    blob[-1] ^= 1
    with sqlite3.connect(damaged) as conn:
        conn.execute("update ttt_core set codes = ? where depth = 1 and chunk = 0", (bytes(blob),))
    answered = run("best-moves", "o........", "--db", str(damaged))
    assert (answered.exit_code, answered.stdout) == (2, "")
    assert answered.stderr == (
        "error: the database is damaged (a chunk of the core does not match its checksum, "
        f"table ttt_core, level 1 chunk 0): {REBUILD}\n"
    )
    verified = run("verify", "--db", str(damaged))
    assert verified.exit_code == 1
    assert "damaged row: table ttt_core, level 1 chunk 0: a chunk of the core does not match its checksum" in (
        verified.stdout
    )


def test_a_resealed_code_is_refused_against_its_moves_and_named_by_verify_from_its_children(
    run, db_path: Path, tmp_path: Path
) -> None:
    """The empty board's code changed from a draw in 9 to a win in 9, with the chunk's checksum
    recomputed: the row disagrees with the core, and the core's children disagree with it."""
    forged = tmp_path / "forged.sqlite"
    forged.write_bytes(db_path.read_bytes())
    codes = zstandard.ZstdDecompressor().decompress(_core_chunk(forged, 0))
    assert value_of_code(codes[0]) == ("draw", 9)
    _reseal_chunk(forged, 0, bytes([1 + 2 * 64 + 9]))
    answered = run("best-moves", ".........", "--db", str(forged))
    assert answered.exit_code == 2
    assert answered.stderr == (
        f"error: the database is damaged (value win in 9, but its moves give draw in 9, board '.........'): {REBUILD}\n"
    )
    verified = run("verify", "--db", str(forged))
    assert verified.exit_code == 1
    assert "damaged row: .........: core code win in 9, its children give draw in 9 (level 0 slot 0)" in (
        verified.stdout
    )


def _dump(path: Path) -> list[tuple[object, ...]]:
    with sqlite3.connect(path) as conn:
        return conn.execute("select * from ttt_core order by depth, chunk").fetchall()


def test_a_build_stopped_between_levels_resumes_above_the_last_finished_one(tmp_path: Path, stopping_build) -> None:
    game = Game.parse("3x4k3")
    whole = tmp_path / "whole.sqlite"
    build_database(whole, game=game)
    solved = stopping_build(5)
    path = tmp_path / "resumed.sqlite"
    with pytest.raises(KeyboardInterrupt):
        build_database(path, game=game)
    assert solved == [12, 11, 10, 9, 8] and not path.exists()
    stopping_build(None)
    notices: list[str] = []
    summary = build_database(path, game=game, notice=notices.append)
    assert summary.resumed_at == 8
    assert notices[0].startswith("resuming the build of 3x4k3 stopped earlier: levels 12 to 8 are solved already")
    assert _dump(path) == _dump(whole)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


@pytest.mark.parametrize(
    ("damage", "why"),
    [
        ("flip", "chunk 0 fails its checksum"),
        ("cut", "it ends or breaks off inside chunk 0"),
        ("counts", "its counts are not those saved with its chunks"),  # issue 58: one digit, built and pinned
    ],
)
def test_a_damaged_level_of_a_stopped_build_is_solved_again_not_written(
    tmp_path: Path, stopping_build, damage: str, why: str
) -> None:
    """A flipped bit or a cut file in a finished level of the work folder: that level and those
    above it are solved again, said so, and the database is the whole build's."""
    game = Game.parse("3x4k3")
    whole = tmp_path / "whole.sqlite"
    build_database(whole, game=game)
    stopping_build(5)
    path = tmp_path / "resumed.sqlite"
    with pytest.raises(KeyboardInterrupt):
        build_database(path, game=game)
    stopping_build(None)
    saved = tmp_path / ".resumed.sqlite.levels" / "level-09.chunks"
    data = bytearray(saved.read_bytes())
    if damage == "flip":
        data[len(data) // 2] ^= 0x10
    elif damage == "cut":
        del data[len(data) // 2 :]
    else:
        saved = saved.with_suffix(".json")
        counts = json.loads(saved.read_text())
        counts["counts"]["wins"] += 1
        data = bytearray(json.dumps(counts).encode())
    saved.write_bytes(bytes(data))
    notices: list[str] = []
    summary = build_database(path, game=game, notice=notices.append)
    assert summary.resumed_at == 10
    assert notices[1] == (
        f"level 9 in the work folder ({saved}) is damaged ({why}): solving it again, and every level above it"
    )
    assert _dump(path) == _dump(whole)


def test_force_solves_every_level_again(tmp_path: Path, stopping_build) -> None:
    game = Game.parse("3x4k3")
    stopping_build(3)
    path = tmp_path / "db.sqlite"
    with pytest.raises(KeyboardInterrupt):
        build_database(path, game=game)
    solved = stopping_build(None)
    notices: list[str] = []
    summary = build_database(path, game=game, force=True, notice=notices.append)
    assert summary.resumed_at is None and notices == [] and solved == [12, 11, 10]


def test_games_up_to_25_cells_are_accepted_and_larger_ones_refused_with_what_they_would_take() -> None:
    assert game_from_name("4x5k4").cells == 20 and game_from_name("5x5k4").cells == 25
    with pytest.raises(UnknownGameError) as refused:
        game_from_name("5x6k4")
    slots = sum(level_slots(30, depth) for depth in range(31))
    expected = "invalid game '5x6k4': 30 cells is more than the 25 any database holds"
    assert str(refused.value).startswith(f"{expected}: its {slots:,} slots")


CHECKED = [
    ("ai1s", False, False),
    ("ai1s", True, True),
    ("ai14s", False, False),
    ("ai14s", True, False),
    ("perfect", False, True),
    ("perfect-shortest", True, True),
    ("dls@3", False, False),
]


@pytest.mark.parametrize(("name", "canonical", "shortest"), CHECKED)
def test_the_strong_check_over_the_core_finds_the_failures_the_reference_solver_finds(
    core_only_path: Path,
    db: SolutionDatabase,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    canonical: bool,
    shortest: bool,
) -> None:
    """Level by level in arrays (the database's AIs answering in arrays, the others board by
    board), with and without extras, the check finds the failures that the reference's check by
    its definition (tests/reference.py) finds at the reference solver's decision positions and
    best moves."""
    from ttt_db.ais.registry import load_ai
    from ttt_db.checks.report import run_checks
    from ttt_db.game.symmetry import canonical_board

    rules = reference.TICTACTOE
    decision = [
        board
        for board in reference.reachable()
        if rules.children(board) and len(reference.best_moves(board)) < len(rules.children(board))
    ]
    if canonical:
        decision = [board for board in decision if board == canonical_board(board, TICTACTOE)]
    best = {board: reference.best_moves(board, shortest=shortest) for board in decision}
    expected = reference.check_strong(load_ai(name, lambda: db).play, decision, best)
    for path, extras_kept in ((None, True), (core_only_path, False)):
        monkeypatch.setattr(extras, "EXTRAS_MAX_CELLS", 16 if extras_kept else 8)
        with open_database(path or db.location) as database:
            done: list[tuple[int, int]] = []
            found = run_checks(
                load_ai(name, lambda database=database: database),
                database,
                weak=False,
                canonical=canonical,
                shortest=shortest,
                progress=lambda d, t, done=done: done.append((d, t)),
            ).strong
        assert found is not None
        assert (found.total, found.correct) == (expected.total, expected.correct), extras_kept
        assert sorted(f.board for f in found.failures) == sorted(f.board for f in expected.failures)
        assert done[-1][0] == done[-1][1] == (found.asked or found.total)


@pytest.mark.parametrize("kernel", list(BACKENDS))
@pytest.mark.parametrize("built", ["db_path", "db_3x4k3_path"])
def test_a_blocks_boards_are_its_slots_own_or_their_classes_canonical_boards(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, built: str, kernel: str
) -> None:
    """`Block.boards_at`, what the strong check asks an AI at and tells a failure at: each slot's
    own board (symmetry 0), or its class's canonical board (`canonical_board`, the least image)
    with a symmetry that makes it from the slot's own (a square's quarter turns are not their own
    inverses), on every level of a square's and a rectangle's core and of both kinds of block."""
    from ttt_db.game.symmetry import canonical_board, transform_board
    from ttt_db.ranked.blocks import blocks

    monkeypatch.setenv(backend.ENVIRONMENT, kernel)
    with open_database(request.getfixturevalue(built)) as database:
        game, tables = database.game, database.core.tables
        assert tables.backend.name == kernel
        told = 0
        for step in database.core.walk():
            for of_classes in (False, True):
                for block in blocks(tables, step, canonical=of_classes, moves=False):
                    where = block.select(0)[::7]
                    own = block.boards(where)
                    assert block.boards_at(where, canonical=False) == (own, [0] * len(where))
                    boards, symmetries = block.boards_at(where, canonical=True)
                    assert boards == [canonical_board(board, game) for board in own]
                    assert [transform_board(b, t, game) for b, t in zip(own, symmetries, strict=True)] == boards
                    told += sum(board != canonical for board, canonical in zip(own, boards, strict=True))
        assert told > 0  # blocks of every set hold boards that are not their classes' canonical ones


def test_an_ai_asked_board_by_board_over_the_core_is_told_what_it_will_take(
    core_only_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ttt_db.checks.strong
    from ttt_db.ais.registry import load_ai
    from ttt_db.checks.report import run_checks

    monkeypatch.setattr(extras, "EXTRAS_MAX_CELLS", 8)
    monkeypatch.setattr(ttt_db.checks.strong, "ANNOUNCE_SECONDS", 0.0)  # 3x3's few boards take no time
    notices: list[str] = []
    with open_database(core_only_path) as core:
        run_checks(load_ai("ai1s"), core, weak=False, notice=notices.append)
        run_checks(load_ai("perfect", lambda: core), core, weak=False, notice=notices.append)
    assert len(notices) == 1  # the database's AIs answer in arrays: nothing to announce
    assert notices[0].startswith("asking ai1s at 3,191 decision positions of 3x3k3: about ")
    assert notices[0].endswith(" a second)")


def test_every_position_streamed_from_the_core_is_the_looked_up_position(
    core_only_path: Path, db: SolutionDatabase, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`all_positions` of a game without extras: every reachable board, with every move's value,
    from the codes of its level and the next in arrays, as a lookup tells it by probing the
    children one by one (without odds and paths)."""
    expected = {position.cells: replace(position, playout=None, paths=None) for position in db.all_positions()}
    monkeypatch.setattr(extras, "EXTRAS_MAX_CELLS", 8)
    with open_database(core_only_path) as core:
        streamed = list(core.all_positions())
    assert len(streamed) == len(expected) == published.LIST_SIZES["all"]
    assert all(position == expected[position.cells] for position in streamed)
    assert [position.depth for position in streamed] == sorted(position.depth for position in streamed)


@pytest.mark.parametrize("name", ["ai1s", "ai14s", "dls@3"])
def test_a_weak_check_over_the_core_alone_names_the_same_counterexample_and_decisive_mistake(
    core_only_path: Path, db: SolutionDatabase, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    from ttt_db.ais.registry import load_ai
    from ttt_db.checks.report import run_checks

    expected = run_checks(load_ai(name), db, strong=False).to_document()
    monkeypatch.setattr(extras, "EXTRAS_MAX_CELLS", 8)
    with open_database(core_only_path) as core:
        found = run_checks(load_ai(name), core, strong=False).to_document()
    assert found == expected


def test_a_second_build_of_one_database_is_refused_while_the_first_runs(tmp_path: Path) -> None:
    import subprocess
    import sys

    from ttt_db.errors import DatabaseError

    path = tmp_path / "db.sqlite"
    folder = ttt_db.build.levels.work_folder(DatabaseLocation(f"sqlite:///{path}", path), Game.parse("3x3k3"))
    claiming = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from ttt_db.build.levels import WorkFolder\n"
        "from ttt_db.game.definition import Game\n"
        "WorkFolder(Path(sys.argv[1]), Game.parse('3x3k3')).claim()\n"
        "print('claimed', flush=True)\n"
        "time.sleep(60)\n"
    )
    running = subprocess.Popen([sys.executable, "-c", claiming, str(folder.path)], stdout=subprocess.PIPE, text=True)
    try:
        assert running.stdout is not None and running.stdout.readline() == "claimed\n"
        with pytest.raises(DatabaseError) as refused:
            build_database(path)
        assert str(refused.value).startswith(f"another build of this database is running (process {running.pid},")
        # issue 58: an owner file naming a live process that is no build of this folder blocked every build
        owner = json.loads((folder.path / "owner.pid").read_text())
        for stale in ({**owner, "started": "1"}, {**owner, "folder": "/elsewhere"}, running.pid):
            (folder.path / "owner.pid").write_text(json.dumps(stale))
            assert build_database(path, force=True).built
            folder.path.mkdir(exist_ok=True)
    finally:
        running.kill()
        running.wait()
    shutil.rmtree(folder.path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["db.sqlite"]
