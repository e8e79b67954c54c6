"""Many boards at once (issue 36): a batch of a compiled game's boards is derived in arrays
(ttt_db/store/lookups.py), and must answer exactly what the one-board path answers, refuse what it
refuses, and still answer a pipe a line at a time; a large stream is answered by helper processes
too (cli/batch_processes.py), exactly as by one."""

from __future__ import annotations

import json
import random
import select
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import reference
from forging import forge_code

from ttt_db.cli.batch_processes import (
    GIVEN_AHEAD,
    GROUP_ITEMS,
    HELPED_FROM,
    HELPED_SOON,
    Helpers,
    answer_group,
    answered_lines,
)
from ttt_db.errors import DatabaseDamagedError, InvalidBoardError
from ttt_db.game.board import Board
from ttt_db.game.definition import Game
from ttt_db.game.rules import empty_cells, mover_at, play, status, swap_marks
from ttt_db.json_text import compact_json
from ttt_db.ranked.codes import code_of
from ttt_db.store.database import ARRAYS_FROM, SolutionDatabase, open_database
from ttt_db.store.lookups import documents_in_arrays, positions_in_arrays

GAME = Game.parse("3x4k3")


def _boards(count: int, seed: int, game: Game = GAME) -> list[str]:
    """Distinct boards met in random games (o first), finished ones included."""
    draw = random.Random(seed)
    found: dict[str, None] = {}
    while len(found) < count:
        board = game.empty_board
        found[board] = None
        while status(board, game) == "playing":
            board = play(board, draw.choice(empty_cells(board)), mover_at(game.cells - board.count(".")))
            found[board] = None
    return list(found)[:count]


@pytest.fixture
def compiled(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("numba")
    monkeypatch.setenv("TTT_DB_KERNEL", "compiled")


def test_the_arrays_answer_what_one_board_at_a_time_answers(compiled: None, db_3x4k3_path: Path) -> None:
    boards = _boards(1500, 36)
    with open_database(db_3x4k3_path) as together, open_database(db_3x4k3_path) as alone:
        assert together.core.tables.backend.compiled
        found = positions_in_arrays(together.core, boards, extras=together.has_extras)
        assert found == [alone.lookup(board) for board in boards]  # odds, paths, canonical, orbit included
        assert any(position.status != "playing" for position in found if position is not None)
        swapped = [swap_marks(board) for board in boards[1:400]]  # x moved first
        items = [*({"board": cells, "first": "x"} for cells in swapped), "o" * 12, *boards[400:800]]
        answers = list(together.position_documents(items))
        expected = [alone.lookup(Board.parse(cells, "x", GAME)).to_document() for cells in swapped]
        assert answers[: len(swapped)] == expected
        assert answers[len(swapped)]["input"] == "o" * 12 and "error" in answers[len(swapped)]
        assert answers[len(swapped) + 1 :] == [alone.lookup(board).to_document() for board in boards[400:800]]
        many = list(together.lookup_many([*boards[800:900], "nonsense"]))
        assert many[:-1] == [alone.lookup(board) for board in boards[800:900]]
        assert isinstance(many[-1], InvalidBoardError)


def test_a_batch_ranked_a_part_ahead_answers_as_one_part_does(
    compiled: None, db_3x4k3_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch derived in parts, each next part ranked on another thread meanwhile
    (`OVERLAPPED_BOARDS`), gives the documents one part gives, in order, the last part short."""
    import ttt_db.store.lookups as lookups_module

    boards = _boards(1000, 12)
    with open_database(db_3x4k3_path) as db:
        whole = documents_in_arrays(db.core, boards, extras=db.has_extras)
        monkeypatch.setattr(lookups_module, "OVERLAPPED_BOARDS", 7)
        assert documents_in_arrays(db.core, boards, extras=db.has_extras) == whole
    assert whole.count(None) == 0 and len(set(whole)) == len(boards)


def test_a_batch_document_is_the_bytes_of_the_one_board_document(compiled: None, db_path: Path) -> None:
    """`position_lines` writes a compiled game's documents without making a Position
    (`documents_in_arrays`): every reachable 3x3 board's line, odds and finished boards included,
    is the compact JSON of the document the one-board lookup makes, and so are those of boards
    told with x first, written in another notation, or refused."""
    every = list(reference.reachable())
    told = [*every, *(swap_marks(board) + ":x" for board in every[:300]), "XO.......", "ooo.xx.xx", "nonsense"]
    with open_database(db_path) as together, open_database(db_path) as alone:
        written = documents_in_arrays(together.core, every, extras=together.has_extras)
        assert written == [compact_json(alone.lookup(board).to_document()) for board in every]
        lines = list(together.position_lines(told))
        assert lines[: len(every) + 300] == [compact_json(alone.lookup(text).to_document()) for text in told[:-3]]
        assert lines[-3] == compact_json(alone.lookup("xo.......").to_document())
        assert [json.loads(line)["input"] for line in lines[-2:]] == ["ooo.xx.xx", "nonsense"]
        assert list(together.position_documents(told)) == [json.loads(line) for line in lines]


def test_a_helper_answers_its_next_group_before_its_last_answer_is_taken(db_3x4k3_path: Path) -> None:
    """A helper's answers are read as they come: one that has answered every group it was given is
    idle (it takes the next) though this process has not taken those answers yet, so a helper
    never stands waiting while this process answers a group of its own."""
    groups = [_boards(2 * ARRAYS_FROM, seed) for seed in range(GIVEN_AHEAD)]
    with open_database(db_3x4k3_path) as database:
        helpers = Helpers(database, 1, None)
        try:
            assert helpers.wait_ready()
            helper = helpers.idle()
            assert helper is not None
            for group in groups:
                assert helper.give(group)
            while helper.arrived.qsize() < GIVEN_AHEAD:  # both answered (or the helper ended: then it fails below)
                time.sleep(0.01)
            assert helper.idle() and helper.given == GIVEN_AHEAD  # none taken, yet it takes another
            assert [helper.take() for _ in groups] == [answer_group(database, group, None) for group in groups]
        finally:
            helpers.close()


@pytest.mark.parametrize("name", ["3x3k3", "3x4k3"])
@pytest.mark.parametrize("kind", ["interpreted", "compiled"])
def test_a_batch_boards_children_and_grandchildren_are_each_ranked_as_one_board_is(name: str, kind: str) -> None:
    """`family_slots` (one kernel, run both ways) against `representative` of each board and of each
    board the rules' own moves make: a finished board has no children, a move that wins or fills the
    board none of its own, every other move every reply."""
    from ttt_db.ranked.backend import compiled, interpreted
    from ttt_db.ranked.slots import masks_of, representative
    from ttt_db.ranked.tables import RankedTables

    if kind == "compiled":
        pytest.importorskip("numba")
    game = Game.parse(name)
    tables = RankedTables(game, compiled() if kind == "compiled" else interpreted())
    made_in_games = _boards(400, 40, game)
    boards = [board for board in made_in_games if status(board, game) != "playing"][:40]
    boards += [board for board in made_in_games if status(board, game) == "playing"][:160]
    n, count, b = game.cells, len(boards), tables.backend
    occupied, o_cells = (b.i64_of(masks) for masks in zip(*map(masks_of, boards), strict=True))
    own, child, ended, grand = b.i64(count), b.i64(count * n), b.u8(count * n), b.i64(count * n * n)
    images, ranks = b.i64(2 * tables.symmetries), tables.rank_bytes
    tables.run.family_slots(tables.arrays, count, occupied, o_cells, own, child, ended, grand, ranks, images)
    for i, board in enumerate(boards):
        assert own[i] == representative(board, game)[1]
        mover = mover_at(n - board.count("."))
        for c in range(n):
            made = play(board, c, mover) if status(board, game) == "playing" and board[c] == "." else None
            end = 0 if made is None or status(made, game) == "playing" else 1 if status(made, game) == mover else 2
            expected = (-1, 0) if made is None else (representative(made, game)[1], end)
            assert (child[i * n + c], ended[i * n + c]) == expected
            for r in range(n):
                after = play(made, r, mover_at(n - made.count("."))) if made and not end and made[r] == "." else None
                assert grand[(i * n + c) * n + r] == (-1 if after is None else representative(after, game)[1])


@pytest.mark.parametrize(("name", "kind"), [("3x3k3", "interpreted"), ("3x3k3", "compiled"), ("4x5k4", "compiled")])
def test_a_mask_ranked_a_byte_at_a_time_has_its_rank_in_the_whole_table(name: str, kind: str) -> None:
    """`mask_rank` (the byte tables `family_slots` ranks with) agrees with `rank_of` on every mask
    of 3x3 and on masks of 4x5 (three bytes) of every bit count, the full and empty ones included."""
    from ttt_db.ranked.backend import compiled, interpreted
    from ttt_db.ranked.tables import RankedTables

    if kind == "compiled":
        pytest.importorskip("numba")
    game = Game.parse(name)
    tables = RankedTables(game, compiled() if kind == "compiled" else interpreted())
    n = game.cells
    draw = random.Random(11)
    masks = range(1 << n) if n <= 12 else [0, (1 << n) - 1, *(draw.getrandbits(n) for _ in range(20000))]
    for mask in masks:
        assert tables.run.mask_rank(mask, n, tables.rank_bytes) == tables.rank_of[mask], bin(mask)


def test_a_child_that_its_own_children_contradict_is_refused_in_a_batch_too(
    compiled: None, db_3x4k3_path: Path, tmp_path: Path
) -> None:
    parent = "ox.........."
    child = "oxo........."  # the parent's move at cell 2
    forged = tmp_path / "forged.sqlite"
    shutil.copy(db_3x4k3_path, forged)
    with open_database(db_3x4k3_path) as clean:
        value = clean.lookup(child).value
    forge_code(forged, child, code_of("win" if value != "win" else "loss", 3), GAME)
    batch = [parent, *_boards(2 * ARRAYS_FROM, 7)]
    with open_database(forged) as db:
        found = positions_in_arrays(db.core, batch, extras=db.has_extras)
        assert found[0] is None  # left to the one-board path, which says what is wrong
        with pytest.raises(DatabaseDamagedError):
            list(db.lookup_many(batch))


def test_a_board_whose_own_code_its_moves_contradict_is_refused_in_a_batch_too(
    compiled: None, db_3x4k3_path: Path, tmp_path: Path
) -> None:
    """The batch holds each board's own code to the best of its moves (`best_and_fastest`): a
    board whose code says otherwise is left to the one-board path, which refuses it in its words."""
    board = "ox.........."
    forged = tmp_path / "forged.sqlite"
    shutil.copy(db_3x4k3_path, forged)
    with open_database(db_3x4k3_path) as clean:
        own = clean.lookup(board)
    forge_code(forged, board, code_of(own.value, own.remoteness + 2), GAME)
    batch = [board, *_boards(2 * ARRAYS_FROM, 8)]
    with open_database(forged) as db:
        found = positions_in_arrays(db.core, batch, extras=db.has_extras)
        assert found[0] is None
        assert all(position is not None for position in found[1:] if position is not None and position.board != board)
        with pytest.raises(DatabaseDamagedError, match="its moves give"):
            list(db.lookup_many(batch))


@pytest.mark.parametrize("reseal", [False, True])
def test_a_damaged_chunk_a_batch_reaches_is_refused_by_name(
    compiled: None, db_3x4k3_path: Path, tmp_path: Path, reseal: bool
) -> None:
    """A chunk of level 4 overwritten (its checksum left, or resealed around bytes that do not
    decompress): a batch whose families reach it (`CoreReader.codes_at`) raises
    DatabaseDamagedError naming that chunk, and a stream of its lines stops there."""
    import sqlite3

    from forging import reseal_blob

    damaged = tmp_path / "damaged.sqlite"
    shutil.copy(db_3x4k3_path, damaged)
    with sqlite3.connect(damaged) as conn:
        if reseal:
            reseal_blob(conn, "ttt_core", "codes", GAME, 4, 0, b"not zstd at all")
        else:
            conn.execute("update ttt_core set codes = ? where depth = 4 and chunk = 0", (b"\x28\xb5\x2f\xfd" * 9,))
    boards = [board for board in _boards(600, 3) if 2 <= 12 - board.count(".") <= 4]
    with open_database(damaged) as db:
        with pytest.raises(DatabaseDamagedError) as refused:
            positions_in_arrays(db.core, boards, extras=db.has_extras)
        assert refused.value.where == "table ttt_core, level 4 chunk 0"
        with pytest.raises(DatabaseDamagedError):
            list(db.position_lines(boards))


def test_codes_gathered_from_a_cache_smaller_than_the_batch_are_each_slot_code(
    compiled: None, db_3x4k3_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`codes_at` over slots of every chunk (a level each here) from a cache of three places (a
    portion of one chunk at a time, each chunk read again after another took its place) gives each
    slot's `code`, in the order asked."""
    import numpy as np

    import ttt_db.store.core as core_module
    from ttt_db.ranked.slots import level_slots

    draw = random.Random(5)
    depths = [draw.randrange(GAME.cells + 1) for _ in range(3000)]
    slots = [draw.randrange(level_slots(GAME.cells, depth)) for depth in depths]
    with open_database(db_3x4k3_path) as alone:
        expected = [alone.core.code(depth, slot) for depth, slot in zip(depths, slots, strict=True)]
    monkeypatch.setattr(core_module, "CACHED_CHUNKS", 3)
    with open_database(db_3x4k3_path) as together:
        reader = together.core
        assert reader._held.places == 3 and core_module.level_chunks(GAME.cells, 6) == 1
        for _ in range(2):  # cold, then with three chunks held
            found = reader.codes_at(np.asarray(depths, np.int64), np.asarray(slots, np.int64))
            assert found.tolist() == expected
    assert len(set(expected)) > 10


def test_a_pipe_is_answered_a_line_at_a_time(db_path: Path) -> None:
    """`best-moves -` answers each line as it arrives: a bot that writes a board and waits for its
    answer before writing the next is not kept waiting for a batch to fill."""
    process = subprocess.Popen(
        [sys.executable, "-m", "ttt_db.cli", "best-moves", "-", "--db", str(db_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        for board in ("ox..x....", "....o...."):
            process.stdin.write(board + "\n")
            process.stdin.flush()
            ready, _, _ = select.select([process.stdout], [], [], 120)  # a guard against a hang, not a budget
            assert ready, f"no answer to {board} while the input stays open"
            assert json.loads(process.stdout.readline())["board"] == board
    finally:
        process.stdin.close()
        assert process.wait(60) == 0


def test_a_prepared_handle_derives_each_board_in_arrays_and_answers_the_same(
    compiled: None, db_3x4k3_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`prepare_arrays` (a server's start) sends every later single lookup through the arrays: the
    same positions as the one-board path, which a handle not prepared keeps to."""
    import ttt_db.store.lookups as lookups

    boards = _boards(300, 7)
    calls: list[int] = []
    counted = lookups.positions_in_arrays
    monkeypatch.setattr(
        lookups,
        "positions_in_arrays",
        lambda core, wanted, **kw: calls.append(len(wanted)) or counted(core, wanted, **kw),
    )
    with open_database(db_3x4k3_path) as prepared, open_database(db_3x4k3_path) as alone:
        answers_alone = [alone.lookup(board).to_document() for board in boards]
        assert calls == []  # not prepared: one board at a time, from its children's codes
        prepared.prepare_arrays()
        assert [prepared.lookup(board).to_document() for board in boards] == answers_alone
        assert calls.count(1) == len(boards) + 1  # the empty board's, as it prepared, then each board's


def _stream_items(database: SolutionDatabase) -> list[str]:
    """Every position of the database's game, twice, with x first where that is reachable, JSON
    records and lines that are not boards among them: a stream of more than HELPED_FROM items."""
    boards = database.node_list("all")
    swapped = [json.dumps({"board": swap_marks(board), "first": "x"}) for board in boards[::7]]
    bad = ["oxo", "ooo......", '{"board": 3}', "{not json"]
    items = [*boards, *swapped, *bad, *boards[::-1]]
    random.Random(5).shuffle(items)
    assert len(items) > HELPED_FROM
    return items


def test_helper_processes_answer_a_stream_exactly_as_this_process_does(db_path: Path) -> None:
    """The groups a helper answers are byte for byte what this process answers, in the stream's
    order, bad lines answered with their errors in their places."""
    with open_database(db_path) as database:
        items = _stream_items(database)
        alone = answer_group(database, items, None)
        helpers = Helpers(database, 1, None)
        assert helpers.wait_ready()
        helped = b"".join(answered_lines(database, [items[:100], items[100:]], helpers=helpers))
    assert helpers.groups >= 1  # the first group of the large arrival went to the helper, ready: a group answered there
    assert helped == alone
    lines = alone.decode().splitlines()
    assert len(lines) == len(items)
    assert json.loads(lines[items.index("oxo")])["input"] == "oxo"


HANG_SECONDS = 600
"""How long a stream that takes seconds is waited for before it is called hung (a guard, not a pace)."""


def test_groups_and_answers_larger_than_a_pipe_holds_pass_both_ways(db_path: Path) -> None:
    """Records carrying a long field of their own make groups, and answers, larger than a pipe
    holds: this process sending a group while its helper sends an answer must not leave each
    waiting for the other to read (the stream then hung, half answered)."""
    with open_database(db_path) as database:
        boards = database.node_list("all")
        items = [json.dumps({"board": board, "note": "n" * 2000}) for board in boards[: 3 * GROUP_ITEMS]]
        alone = answer_group(database, items, None)
        helpers = Helpers(database, 1, None)
        assert helpers.wait_ready()
        answered: list[bytes] = []
        stream = threading.Thread(
            target=lambda: answered.extend(answered_lines(database, [items], helpers=helpers)), daemon=True
        )
        stream.start()
        stream.join(HANG_SECONDS)
        assert not stream.is_alive(), "this process and its helper each wait for the other to read"
    assert helpers.groups >= 1
    assert b"".join(answered) == alone


def test_a_stream_of_a_few_boards_never_starts_a_helper(db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot's game, a board at a time, and a batch smaller than HELPED_FROM are answered here alone."""
    import ttt_db.cli.batch_processes as batch_processes

    def refused(*args: object) -> None:
        raise AssertionError("a helper was started")

    monkeypatch.setattr(batch_processes, "Helpers", refused)
    with open_database(db_path) as database:
        items = _stream_items(database)[: HELPED_FROM - 1]
        arrivals = [items[:1], items[1:2], items[2:]]
        assert b"".join(answered_lines(database, arrivals, processes=4)) == answer_group(database, items, None)


def test_a_large_stream_through_a_pipe_starts_its_helpers_at_its_first_arrival(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pipe delivers a large stream a buffer at a time: an arrival of HELPED_SOON items with more
    waiting starts the helpers before it is answered (their start runs beside its answers), while
    the same arrival with nothing more waiting (a bot's batch) starts none."""
    import ttt_db.cli.batch_processes as batch_processes

    started: list[int] = []

    def counted(database: SolutionDatabase, count: int, first: object) -> None:
        started.append(len(answered))
        return None

    monkeypatch.setattr(batch_processes, "Helpers", counted)
    with open_database(db_path) as database:
        items = _stream_items(database)[:HELPED_SOON]
        for waiting, expected in ((True, [0]), (False, [])):
            started.clear()
            answered: list[bytes] = []
            for line in answered_lines(database, [items], processes=2, more_arrived=lambda waiting=waiting: waiting):
                answered.append(line)
            assert started == expected
            assert b"".join(answered) == answer_group(database, items, None)


def test_a_helper_that_cannot_open_the_database_leaves_every_group_to_this_process(
    db_path: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "copy.sqlite"
    shutil.copy(db_path, copy)
    with open_database(copy) as database:
        items = _stream_items(database)
        alone = answer_group(database, items, None)
        copy.unlink()  # this process's handle stays open; a helper started now cannot open the file
        helpers = Helpers(database, 1, None)
        assert not helpers.wait_ready()
        assert b"".join(answered_lines(database, [items], helpers=helpers)) == alone
    assert helpers.groups == 0


def test_a_stream_is_answered_alone_where_no_helper_process_can_be_started(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import multiprocessing

    import ttt_db.cli.batch_processes as batch_processes

    class Refusing:
        def __init__(self, **_: object) -> None:
            pass

        def start(self) -> None:
            raise OSError(11, "Resource temporarily unavailable")

    class NoProcesses:
        Pipe = staticmethod(multiprocessing.Pipe)
        Process = Refusing

    monkeypatch.setattr(batch_processes.multiprocessing, "get_context", lambda method: NoProcesses())
    with open_database(db_path) as database:
        items = _stream_items(database)
        assert b"".join(answered_lines(database, [items], processes=3)) == answer_group(database, items, None)


def test_damage_a_helper_meets_is_raised_here_in_its_own_words(db_path: Path, tmp_path: Path) -> None:
    """A forged code, resealed, that a helper meets ends the helper; this process answers the group
    again and refuses the database as the one-board path does."""
    forged = tmp_path / "forged.sqlite"
    shutil.copy(db_path, forged)
    board = "....o.o.x"
    forge_code(forged, board, code_of("loss", 4), Game.parse("3x3k3"))
    with open_database(forged) as database:
        with pytest.raises(DatabaseDamagedError) as alone:
            database.lookup(board)
        helpers = Helpers(database, 1, None)
        assert helpers.wait_ready()
        with pytest.raises(DatabaseDamagedError) as helped:
            list(answered_lines(database, [[board] * (HELPED_FROM + 1)], helpers=helpers))
    assert str(helped.value) == str(alone.value)
    assert helpers.groups == 0


def test_best_moves_answers_a_large_batch_alike_with_one_process_or_several(db_path: Path, tmp_path: Path) -> None:
    with open_database(db_path) as database:
        items = _stream_items(database)
    batch = tmp_path / "boards.txt"
    batch.write_text("\n".join(items) + "\n")
    answers = []
    for processes in ("1", "2"):
        with batch.open() as stdin:
            done = subprocess.run(
                [sys.executable, "-m", "ttt_db.cli", "show", "-", "--processes", processes, "--db", str(db_path)],
                stdin=stdin,
                capture_output=True,
                check=True,
            )
        assert done.stderr == b""
        answers.append(done.stdout)
    assert answers[0] == answers[1]
    assert answers[0].count(b"\n") == len(items)
