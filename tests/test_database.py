"""The library's database API: opening, raising and non-raising lookups, conventions."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from ttt_db import Board
from ttt_db.build import build_database, open_or_build
from ttt_db.errors import (
    DatabaseDamagedError,
    DatabaseError,
    DatabaseMissingError,
    ImpossibleBoardError,
    InvalidBoardError,
)
from ttt_db.game.definition import TICTACTOE
from ttt_db.store.database import SolutionDatabase, open_database
from ttt_db.store.location import resolve_location


def test_lookup_accepts_every_notation_and_board_objects(db: SolutionDatabase) -> None:
    expected = db.lookup("ox..x....")
    assert db.lookup("OX./.X./...") == expected
    assert db.lookup(Board.parse("ox..x....")) == expected
    assert db.best_moves("ox..x....") == (7,)


def test_x_first_answers_in_the_users_marks(db: SolutionDatabase) -> None:
    swapped = db.lookup("ox..x....")
    stored = db.lookup("xo..o....")
    assert swapped.cells == "ox..x...." and stored.cells == "xo..o...."
    assert (swapped.first, stored.first) == ("x", "o")
    assert (swapped.to_move, stored.to_move) == ("o", "x")
    assert swapped.best_moves == stored.best_moves
    assert swapped.score == stored.score  # from the first player's side in both
    assert (swapped.playout.o, swapped.playout.x) == (stored.playout.x, stored.playout.o)
    finished = db.lookup("xxx.oo...")  # x first, x won
    assert (finished.status, finished.value, finished.score) == ("x", "loss", 1)


def test_raising_and_default_forms(db: SolutionDatabase) -> None:
    with pytest.raises(ImpossibleBoardError, match="'xxx......'"):
        db.lookup("xxx......")
    assert db.get("xxx......") is None
    assert db.get("xxx......", "none") == "none"
    assert db.get("ox..x....") == db.lookup("ox..x....")
    with pytest.raises(InvalidBoardError):
        db.get("ox")


def test_analyse_lists_every_legal_move(db: SolutionDatabase) -> None:
    analysis = {a.move: a for a in db.analyse("ox..x....")}
    assert sorted(analysis) == [2, 3, 5, 6, 7, 8]
    assert analysis[7].value == "draw" and analysis[7].name == "b3"
    assert all(analysis[m].value == "loss" and analysis[m].remoteness == 1 for m in (2, 3, 5, 6, 8))


def test_warm_lookups_come_from_memory(db_path: Path) -> None:
    database = open_database(db_path)
    database.load_all()
    database.close()
    database.reader = None  # type: ignore[assignment]  # any query would now fail
    position = database.lookup("....o....")
    assert position is database.lookup("....o....")
    assert database.lookup("ox..x....").best_moves == (7,)  # swapped from the cached row


def test_missing_database(tmp_path: Path) -> None:
    with pytest.raises(DatabaseMissingError, match="ttt-db build"):
        open_database(tmp_path / "none.sqlite")
    assert not (tmp_path / "none.sqlite").exists()


def test_open_or_build_builds_on_first_use(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    target = tmp_path / "new.sqlite"
    with open_or_build(target) as database:
        assert database.lookup(".........").remoteness == 9
    assert caplog.messages == [f"no database at {target}: building it now (first use)"]
    caplog.clear()
    with open_or_build(target):
        assert caplog.messages == []


def test_foreign_and_outdated_databases_are_refused(tmp_path: Path, altered_copy) -> None:
    foreign = tmp_path / "foreign.sqlite"
    sqlite3.connect(foreign).execute("create table t (x)").connection.commit()
    with pytest.raises(DatabaseError, match="not a ttt-db database"):
        open_database(foreign)
    old = altered_copy("update ttt_meta set value = '0' where key = 'schema_version'")
    with pytest.raises(DatabaseError, match="build --force"):
        open_database(old)


def test_a_url_and_the_environment_address_the_database(
    db_path: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    with open_database(f"sqlite:///{db_path}") as database:
        assert database.lookup(".........").value == "draw"
    monkeypatch.setenv("TTT_DB", str(db_path))
    assert resolve_location(None, TICTACTOE).path == db_path
    with open_database() as database:
        assert database.location.path == db_path
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TTT_DB")
    assert resolve_location(None, TICTACTOE).path is not None and resolve_location(None, TICTACTOE).path.is_absolute()


def test_a_missing_chunk_is_damage_not_an_impossible_board(altered_copy) -> None:
    with open_database(altered_copy("delete from ttt_core where depth = 1")) as database:
        damaged = r"the database is damaged \(a chunk of the core is missing, table ttt_core, level 1 chunk 0\)"
        with pytest.raises(DatabaseDamagedError, match=damaged):
            database.lookup("....o....")
        with pytest.raises(DatabaseDamagedError):  # damage, not an impossible board
            database.get("....o....")
        assert database.get("xxx......") is None


def test_default_location_is_the_checkouts_data_folder_or_the_users(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """An editable install from a checkout keeps its database in the checkout's data/; a plain
    install (the sdist's tests run one) in the user's data folder."""
    import ttt_db

    monkeypatch.delenv("TTT_DB", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    installed_from = Path(ttt_db.__file__).resolve().parent.parent
    if (installed_from / "pyproject.toml").is_file() and (installed_from / "data").is_dir():
        expected = installed_from / "data" / "ttt-db.sqlite"
    else:
        expected = tmp_path / "ttt-db" / "ttt-db.sqlite"
    assert resolve_location(None, TICTACTOE).path == expected
    assert resolve_location(None, TICTACTOE).url == f"sqlite:///{expected}"


def test_build_into_a_url_without_a_file_path(tmp_path: Path) -> None:
    url = f"sqlite:///file:{tmp_path / 'viaurl.sqlite'}?uri=true"
    summary = build_database(url)
    assert summary.built and summary.location.path is None
    with open_database(url) as database:
        assert database.lookup("ox..x....").best_moves == (7,)


def test_reading_a_local_file_does_not_import_sqlalchemy(db_path: Path) -> None:
    """SQLAlchemy's import alone is over a whole best-moves command's budget (0.35 s)."""
    import subprocess
    import sys

    code = (
        "import sys; from ttt_db.store.database import open_database; "
        f"db = open_database({str(db_path)!r}); print(db.lookup('ox..x....').best_moves, "
        "'sqlalchemy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["(7,)", "False"]


def test_a_local_file_is_read_only(db_path: Path) -> None:
    import sqlite3

    with open_database(db_path) as database:
        database.lookup("....o....")
        connection = database.reader._connection()  # type: ignore[attr-defined]
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            connection.execute("DELETE FROM ttt_meta")


def test_a_game_may_be_named_as_text_where_a_notebook_would_write_it(db_3x4k3_path) -> None:
    from ttt_db.errors import UnknownGameError
    from ttt_db.game.definition import Game

    with open_database(db_3x4k3_path, game="3x4k3") as by_name:
        assert by_name.game == Game.parse("3x4k3")
    with pytest.raises(UnknownGameError, match="'4x4'"):
        open_database(db_3x4k3_path, game="4x4")


def test_a_stream_left_unfinished_closes_quietly_after_its_database(db_path: Path) -> None:
    """A check stopped by a signal closes its database, then the stream it was reading is collected:
    closing that stream said "Cannot operate on a closed database" as an ignored exception's
    traceback (yield from a cursor closes the cursor, on a closed connection)."""
    import gc
    import sys

    from ttt_db.store.database import make_reader
    from ttt_db.store.location import resolve_location

    reader = make_reader(resolve_location(db_path, TICTACTOE))
    stream = reader.stream("SELECT key FROM ttt_positions")
    assert next(stream) is not None
    reader.close()
    unraisable: list[object] = []
    hook, sys.unraisablehook = sys.unraisablehook, unraisable.append
    try:
        stream.close()  # raised ReadFailedError before
        del stream
        gc.collect()
    finally:
        sys.unraisablehook = hook
    assert unraisable == []
