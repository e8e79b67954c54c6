"""A shared PostgreSQL server loses nothing: other applications' tables survive a build, a table
of ours that someone else made is never replaced, and a rebuild is one transaction, so readers
see the old database or the new one, never half of one."""

from __future__ import annotations

import json
import threading

import pytest
from sqlalchemy import create_engine, text

from ttt_db.build import build_database
from ttt_db.errors import DatabaseError
from ttt_db.store import published
from ttt_db.store.database import open_database


@pytest.fixture
def empty_schema(postgres_url: str):
    """The server's public schema, emptied before each test."""
    engine = create_engine(postgres_url)
    with engine.begin() as conn:
        conn.execute(text("drop schema public cascade"))
        conn.execute(text("create schema public"))
    yield postgres_url, engine
    engine.dispose()


def test_build_and_answer_on_a_server(empty_schema, run) -> None:
    url, _ = empty_schema
    built = run("build", "-q", "--db", url)
    assert built.exit_code == 0, built.output
    answered = run("best-moves", "ox..x....", "--json", "--db", url)
    assert json.loads(answered.stdout)["best_moves"] == [7]
    verified = run("verify", "--db", url)
    assert verified.exit_code == 0, verified.stdout
    checked = run("check", "ai14s", "--strong", "--db", url)
    assert "3,139/3,191 decision positions" in checked.stdout


def test_a_game_stored_as_its_core_alone_on_a_server(empty_schema, run, monkeypatch: pytest.MonkeyPatch) -> None:
    """The ranked core's chunks written and read through SQLAlchemy: tic-tac-toe stored as a game
    over EXTRAS_MAX_CELLS cells is, answered from the core alone, verified level by level."""
    from ttt_db.store import extras

    url, engine = empty_schema
    monkeypatch.setattr(extras, "EXTRAS_MAX_CELLS", 8)
    assert run("build", "-q", "--db", url).exit_code == 0
    with engine.connect() as conn:
        assert conn.execute(text("select count(*) from ttt_extras")).scalar_one() == 0
        assert conn.execute(text("select count(*) from ttt_core")).scalar_one() == 10  # a chunk per level
    answered = run("best-moves", "ox..x....", "--json", "--db", url)
    assert json.loads(answered.stdout)["best_moves"] == [7]
    verified = run("verify", "--db", url)
    assert verified.exit_code == 0 and verified.stdout.startswith("ok: "), verified.stdout


def test_other_applications_tables_survive(empty_schema) -> None:
    url, engine = empty_schema
    with engine.begin() as conn:
        conn.execute(text("create table meta (key text primary key, value text)"))
        conn.execute(text("insert into meta values ('owner', 'billing')"))
        conn.execute(text("create table positions (id int primary key, ticker text)"))
        conn.execute(text("insert into positions values (1, 'ACME')"))
    build_database(url)
    build_database(url, force=True)
    with engine.connect() as conn:
        assert conn.execute(text("select value from meta")).scalar_one() == "billing"
        assert conn.execute(text("select ticker from positions")).scalar_one() == "ACME"
    with open_database(url) as db:
        assert db.lookup("ox..x....").best_moves == (7,)


def test_a_foreign_table_with_our_name_is_never_replaced(empty_schema) -> None:
    url, engine = empty_schema
    with engine.begin() as conn:
        conn.execute(text("create table ttt_core (note text)"))
        conn.execute(text("insert into ttt_core values ('keep me')"))
    with pytest.raises(DatabaseError, match="table ttt_core already exists and ttt-db cannot prove it made it"):
        build_database(url, force=True)
    with engine.connect() as conn:
        assert conn.execute(text("select note from ttt_core")).scalar_one() == "keep me"


def test_another_applications_meta_with_a_schema_version_survives_build_and_force(empty_schema, run) -> None:
    """The tables' names and a `schema_version` row prove nothing: only ttt-db's owner entry does."""
    url, engine = empty_schema
    with engine.begin() as conn:
        conn.execute(text("create table ttt_meta (key text primary key, value text)"))
        conn.execute(text("insert into ttt_meta values ('schema_version', '4'), ('owner', 'billing')"))
        conn.execute(text("create table ttt_positions (id int primary key, ticker text)"))
        conn.execute(text("insert into ttt_positions values (1, 'ACME')"))  # an older ttt-db's name
    for args in (["build", "-q"], ["build", "-q", "--force"]):
        refused = run(*args, "--db", url)
        assert refused.exit_code == 2 and refused.stdout == "", args
        assert "table ttt_meta, ttt_positions already exist and ttt-db cannot prove it made them" in refused.stderr
        assert "another schema" in refused.stderr
    with engine.connect() as conn:
        assert conn.execute(text("select value from ttt_meta where key = 'owner'")).scalar_one() == "billing"
        assert conn.execute(text("select ticker from ttt_positions")).scalar_one() == "ACME"


def test_a_database_ttt_db_made_is_rebuilt_in_place(empty_schema) -> None:
    url, engine = empty_schema
    build_database(url)
    assert build_database(url).built is False  # its own: already there
    assert build_database(url, force=True).built is True
    with engine.connect() as conn:
        owner = conn.execute(text("select value from ttt_meta where key = 'made_by'")).scalar_one()
    assert json.loads(owner).startswith("ttt-db")


def test_readers_see_the_old_or_the_new_database_during_a_rebuild(empty_schema) -> None:
    url, _ = empty_schema
    build_database(url)
    failures: list[BaseException] = []
    answers: list[tuple[int, ...]] = []
    stop = threading.Event()

    def read() -> None:
        while not stop.is_set():
            try:
                with open_database(url) as db:
                    answers.append(db.lookup("ox..x....").best_moves)
                    assert len(db.node_list("decision")) == published.LIST_SIZES["decision"]
            except BaseException as error:  # noqa: BLE001 - any failure of a reader is the finding
                failures.append(error)
                return

    readers = [threading.Thread(target=read) for _ in range(3)]
    for reader in readers:
        reader.start()
    for _ in range(2):
        build_database(url, force=True)
    stop.set()
    for reader in readers:
        reader.join()
    assert failures == []
    assert answers and set(answers) == {(7,)}
