"""Pinned digests and published files (issue 37): a pinned database refuses every resealed forgery
on every path; the build, a fetch and a passing verify pin what they wrote or proved; a mirror's
file is kept only when it is the one its manifest describes, and a broken download resumes."""

from __future__ import annotations

import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import closing
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import zstandard
from forging import forge_code, forge_extras, reseal_blob, reseal_meta
from typer.testing import CliRunner

from ttt_db.cli.app import app
from ttt_db.errors import DatabaseDamagedError, DigestMismatchError, InvalidDigestError, PublishedFileError
from ttt_db.game.definition import TICTACTOE
from ttt_db.ranked.codes import CODE_OF_WORTH
from ttt_db.ranked.slots import representative
from ttt_db.store import plain
from ttt_db.store.chunks import CHUNK_SLOTS, chunk_checksum
from ttt_db.store.database import open_database
from ttt_db.store.location import resolve_location
from ttt_db.store.mirror import MANIFEST_NAME, fetch, publish
from ttt_db.store.pins import DIGEST_ENV_VAR, recorded_pin

PINNED = "is not the database pinned"


def cli(*args: str, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(app, list(args), env=env)


@pytest.fixture
def built(tmp_path: Path) -> Path:
    """A tic-tac-toe database built by this test at a path of its own (so pinned by its build)."""
    path = tmp_path / "built.sqlite"
    result = cli("build", "--db", str(path), "--quiet")
    assert result.exit_code == 0, result.output
    return path


def _digest(path: Path) -> str:
    with open_database(path, recorded=False) as database:
        return database.content_digest()


def test_the_build_prints_and_records_its_digest_and_info_shows_it(built: Path) -> None:
    digest = _digest(built)
    pin = recorded_pin(resolve_location(built, TICTACTOE))
    assert pin is not None and pin.digest == digest and pin.recorded
    assert f"content digest: {digest}" in cli("info", "--db", str(built)).stdout
    with open_database(built) as database:
        assert database.pin == pin
        assert database.meta()["content_sha256"] == digest


def test_every_build_of_a_game_has_one_digest_the_one_the_docs_list(built: Path, tmp_path: Path) -> None:
    """Issue 58: two builds minutes apart printed two digests (the build time was hashed), so no
    one could check a copy by building the game."""
    again = tmp_path / "again.sqlite"
    assert cli("build", "--db", str(again), "--quiet").exit_code == 0
    digest = _digest(built)
    assert _digest(again) == digest
    with sqlite3.connect(again) as conn:  # the build's record is kept, not hashed: a later version's is the same file
        entries = dict(conn.execute("select key, value from ttt_meta").fetchall())
        entries |= {"package_version": json.dumps("9.9.9"), "built_at": json.dumps("2030-01-01T00:00:00+00:00")}
        reseal_meta(conn, entries)
    assert _digest(again) == digest
    listed = Path(__file__).parent.parent / "docs" / "database.md"
    row = next(line for line in listed.read_text().splitlines() if line.startswith("| 3x3k3 | `"))
    version = ".".join(map(str, zstandard.ZSTD_VERSION))
    if f"zstd {version})" not in listed.read_text():
        pytest.skip(f"docs/database.md lists the digests zstd 1.5.7 makes; this is zstd {version}")
    assert row == f"| 3x3k3 | `{digest}` |"


def _forgeries(path: Path, rng: random.Random) -> Iterator[str]:
    """Resealed single edits of a copy of `path` of every kind: a code, an extras value, a depth
    count, a meta entry; each yielded as the copy's name once made."""
    boards = [board for board in _all_boards() if board.count("o") - board.count("x") in (0, 1)]
    for number in range(12):
        copy = path.with_name(f"forged-{number}.sqlite")
        shutil.copyfile(path, copy)
        kind = number % 4
        if kind == 0:
            forge_code(copy, rng.choice(boards[:2000]), CODE_OF_WORTH[rng.randrange(1, len(CODE_OF_WORTH))], TICTACTOE)
        elif kind == 1:
            forge_extras(copy, rng.choice(boards[:2000]), "paths", rng.randrange(2, 50), TICTACTOE)
        else:
            with sqlite3.connect(copy) as conn:
                if kind == 2:
                    conn.execute(
                        "update ttt_depth_counts set positions = positions + 1 where depth = ?", (rng.randrange(9),)
                    )
                entries = dict(conn.execute("select key, value from ttt_meta").fetchall())
                entries["note"] = json.dumps(
                    f"forged {number}"
                )  # an entry of its own: hashed, as all but the build's record
                reseal_meta(conn, entries)
        yield copy.name


def _all_boards() -> list[str]:
    from itertools import product

    return ["".join(cells) for cells in product("ox.", repeat=9) if "." in cells][::7]


def test_a_pinned_database_refuses_every_resealed_forgery_at_open(built: Path, tmp_path: Path) -> None:
    digest = _digest(built)
    for name in _forgeries(built, random.Random(37)):
        forged = tmp_path / name
        with pytest.raises(DigestMismatchError) as refused:
            open_database(forged, digest=digest)
        assert refused.value.pinned == digest and refused.value.found == _digest(forged) != digest
        with open_database(forged, recorded=False):  # unpinned, the forgery opens: only its reads can refuse it
            pass


@pytest.mark.parametrize(
    "args",
    [
        ["best-moves", "........."],
        ["show", "o........"],
        ["info"],
        ["export", "--depth", "1"],
        ["check", "perfect", "--weak"],
        ["match", "perfect", "perfect", "--games", "2"],
        ["search", "alphabeta", "o...x...."],
    ],
)
def test_every_command_refuses_a_file_changed_after_its_build(built: Path, args: list[str]) -> None:
    forge_code(built, "o........", CODE_OF_WORTH[1], TICTACTOE)
    refused = cli(*args, "--db", str(built))
    assert refused.exit_code == 2, refused.output
    assert PINNED in refused.stderr and "recorded when built on" in refused.stderr
    assert "`ttt-db verify`" in refused.stderr


def test_the_server_refuses_a_pinned_forgery_before_it_serves(built: Path) -> None:
    forge_code(built, "o........", CODE_OF_WORTH[1], TICTACTOE)
    server = subprocess.run(
        [sys.executable, "-m", "ttt_db.cli", "serve", "--port", "0", "--db", str(built)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert server.returncode == 2 and PINNED in server.stderr and "serves" not in server.stdout


def test_a_given_digest_pins_a_copy_by_option_and_by_environment(built: Path, tmp_path: Path) -> None:
    digest = _digest(built)
    copy = tmp_path / "copy.sqlite"
    shutil.copyfile(built, copy)
    assert cli("best-moves", "ox..x....", "--db", str(copy), "--digest", digest.upper()).exit_code == 0
    forge_code(copy, "o........", CODE_OF_WORTH[1], TICTACTOE)
    by_option = cli("best-moves", "ox..x....", "--db", str(copy), "--digest", digest)
    by_env = cli("best-moves", "ox..x....", "--db", str(copy), env={DIGEST_ENV_VAR: digest})
    for refused, source in ((by_option, "the pin (given)"), (by_env, f"the pin (from ${DIGEST_ENV_VAR})")):
        assert refused.exit_code == 2 and PINNED in refused.stderr and source in refused.stderr
    unpinned = cli("best-moves", "ox..x....", "--db", str(copy))  # a board the forgery does not reach
    assert unpinned.exit_code == 0
    bad = cli("best-moves", "ox..x....", "--db", str(copy), "--digest", "abc")
    assert bad.exit_code == 2 and bad.stderr.startswith("error: invalid digest 'abc': a content digest is 64")
    with pytest.raises(InvalidDigestError):
        open_database(copy, digest="g" * 64)


def test_a_chunk_resealed_by_its_checksum_alone_fails_its_hash_unpinned(db_path: Path, tmp_path: Path) -> None:
    copy = tmp_path / "checksum-only.sqlite"
    shutil.copyfile(db_path, copy)
    blob = zstandard.ZstdCompressor().compress(bytes([CODE_OF_WORTH[1]]))
    with sqlite3.connect(copy) as conn:
        check = chunk_checksum(TICTACTOE.name, 0, 0, blob)
        conn.execute("update ttt_core set codes = ?, checksum = ? where depth = 0 and chunk = 0", (blob, check))
    with open_database(copy) as database, pytest.raises(DatabaseDamagedError) as refused:
        database.lookup(".........")
    assert refused.value.what == "a chunk of the core does not match its hash"
    assert refused.value.where == "table ttt_core, level 0 chunk 0"


def test_extras_cannot_be_moved_onto_other_classes_by_an_edit_of_the_core(db_path: Path, tmp_path: Path) -> None:
    """A representative's code zeroed and an unused slot later in the same chunk given it (the
    number of classes unchanged), the core resealed to the meta but the extras untouched: a
    class between the two, whose extras would shift onto its neighbour's, is refused."""
    copy = tmp_path / "shifted.sqlite"
    shutil.copyfile(db_path, copy)
    depth = 4
    with sqlite3.connect(copy) as conn:
        blob = conn.execute("select codes from ttt_core where depth = ? and chunk = 0", (depth,)).fetchone()[0]
        codes = bytearray(zstandard.ZstdDecompressor().decompress(blob))
        used = [slot for slot, code in enumerate(codes) if code]
        moved, asked = used[0], used[1]
        unused = next(slot for slot in range(asked + 1, len(codes)) if not codes[slot])
        codes[unused], codes[moved] = codes[moved], 0
        reseal_blob(conn, "ttt_core", "codes", TICTACTOE, depth, 0, zstandard.ZstdCompressor().compress(bytes(codes)))
    from ttt_db.ranked.slots import board_of_slot

    board = board_of_slot(TICTACTOE, depth, asked)
    assert representative(board, TICTACTOE)[1] == asked < CHUNK_SLOTS
    with open_database(copy) as database, pytest.raises(DatabaseDamagedError) as refused:
        database.lookup(board)
    assert refused.value.what == "a chunk of the extras does not match its checksum"


def test_verify_proves_a_file_and_records_its_digest(built: Path, tmp_path: Path) -> None:
    """A sound file that is not the one built at its path (its meta resealed): refused by the
    build's pin, proved by verify, which records its digest in place of the build's."""
    with sqlite3.connect(built) as conn:
        entries = dict(conn.execute("select key, value from ttt_meta").fetchall())
        entries["note"] = json.dumps("built elsewhere")
        reseal_meta(conn, entries)
    assert cli("best-moves", ".........", "--db", str(built)).exit_code == 2
    proved = cli("verify", "--db", str(built))
    assert proved.exit_code == 0, proved.output
    assert (
        "pinned: recorded its digest in " in proved.stdout
        and "replacing the digest recorded when built" in proved.stdout
    )
    assert cli("best-moves", ".........", "--db", str(built)).exit_code == 0
    again = cli("verify", "--db", str(built))
    assert again.exit_code == 0 and "pinned:" not in again.stdout  # already its pin
    copy = tmp_path / "copy.sqlite"
    shutil.copyfile(built, copy)
    forge_code(copy, "o........", CODE_OF_WORTH[1], TICTACTOE)
    failed = cli("verify", "--db", str(copy))
    assert failed.exit_code == 1 and "pinned:" not in failed.stdout
    assert recorded_pin(resolve_location(copy, TICTACTOE)) is None


class _Mirror(BaseHTTPRequestHandler):
    """A folder served over HTTP with range requests; `breaks` responses are cut short halfway; with
    `drip` the database's bytes come a few at a time; with `redirect` it is sent elsewhere."""

    folder: Path
    breaks = 0
    ranges: list[str]
    drip = False
    redirect = ""

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        path = self.folder / self.path.lstrip("/")
        if not path.is_file():
            self.send_error(404)
            return
        if self.redirect and path.name != MANIFEST_NAME:
            self.send_response(302)
            self.send_header("Location", self.redirect)
            self.end_headers()
            return
        data = path.read_bytes()
        wanted = self.headers.get("Range")
        start = int(wanted.removeprefix("bytes=").rstrip("-")) if wanted else 0
        self.ranges.append(wanted or "")
        self.send_response(206 if wanted else 200)
        if wanted:
            self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
        self.send_header("Content-Length", str(len(data) - start))
        self.end_headers()
        body = data[start:]
        if path.name != MANIFEST_NAME and self.drip:
            for at in range(0, len(body), 64):
                self.wfile.write(body[at : at + 64])
                self.wfile.flush()
                time.sleep(0.05)
            return
        if path.name != MANIFEST_NAME and type(self).breaks > 0:
            type(self).breaks -= 1
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.connection.shutdown(2)
            return
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        return None


@pytest.fixture
def mirror(db_path: Path, tmp_path: Path) -> Iterator[tuple[str, type[_Mirror], Path]]:
    """The session database published into a folder, served on a free port: (URL, handler, folder)."""
    folder = tmp_path / "mirror"
    publish(db_path, folder)
    handler = type("Mirror", (_Mirror,), {"folder": folder, "breaks": 0, "ranges": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", handler, folder
    finally:
        server.shutdown()
        server.server_close()


def test_a_fetched_database_is_the_published_file_byte_for_byte_and_pinned(
    mirror: tuple[str, type[_Mirror], Path], db_path: Path, tmp_path: Path
) -> None:
    url, handler, folder = mirror
    manifest = json.loads((folder / MANIFEST_NAME).read_text())["databases"]
    assert [entry["game"] for entry in manifest] == ["3x3k3"] and manifest[0]["digest"] == _digest(db_path)
    target = tmp_path / "fetched.sqlite"
    fetched = cli("build", "--from", url, "--db", str(target))
    assert fetched.exit_code == 0, fetched.output
    assert target.read_bytes() == db_path.read_bytes()
    assert f"content digest {manifest[0]['digest']}" in fetched.stdout
    pin = recorded_pin(resolve_location(target, TICTACTOE))
    assert pin is not None and pin.digest == manifest[0]["digest"] and f"fetched from {url}" in pin.source
    assert cli("build", "--from", url, "--db", str(target)).stdout.startswith("database already at")
    local = tmp_path / "from-folder.sqlite"
    as_json = cli("build", "--from", str(folder), "--db", str(local), "--json")
    assert as_json.exit_code == 0
    document = json.loads(as_json.stdout)
    assert (document["fetched"], document["digest"], document["size"]) == (
        True,
        manifest[0]["digest"],
        manifest[0]["size"],
    )
    assert local.read_bytes() == db_path.read_bytes()
    again = json.loads(cli("build", "--from", str(folder), "--db", str(local), "--json").stdout)
    assert again == {"location": str(local), "fetched": False}


def test_a_broken_download_resumes_within_a_fetch_and_across_fetches(
    mirror: tuple[str, type[_Mirror], Path], db_path: Path, tmp_path: Path
) -> None:
    url, handler, _ = mirror
    target = tmp_path / "resumed.sqlite"
    handler.breaks = 1
    fetch(url, resolve_location(target, TICTACTOE), TICTACTOE)
    assert target.read_bytes() == db_path.read_bytes()
    assert handler.ranges[-2:] == ["", f"bytes={db_path.stat().st_size // 2}-"]
    again = tmp_path / "again.sqlite"
    handler.breaks = 100
    stopped = cli("build", "--from", url, "--db", str(again))
    assert stopped.exit_code == 2 and "bytes are kept, and the same command resumes from there" in stopped.stderr
    assert not again.exists() and len(list(tmp_path.glob(".again.sqlite.*.part"))) == 1
    handler.breaks = 0
    resumed = cli("build", "--from", url, "--db", str(again))
    assert resumed.exit_code == 0 and "resumed at byte" in resumed.stdout
    assert again.read_bytes() == db_path.read_bytes() and not list(tmp_path.glob("*.part"))


def test_a_mirror_file_one_byte_off_its_manifest_is_refused_and_nothing_kept(
    mirror: tuple[str, type[_Mirror], Path], tmp_path: Path
) -> None:
    url, _, folder = mirror
    served = folder / "ttt-db.sqlite"
    data = bytearray(served.read_bytes())
    data[len(data) // 2] ^= 1
    served.write_bytes(bytes(data))
    target = tmp_path / "refused.sqlite"
    refused = cli("build", "--from", url, "--db", str(target))
    assert refused.exit_code == 2 and "its manifest says" in refused.stderr and "nothing was kept" in refused.stderr
    assert not target.exists() and not list(tmp_path.glob(".refused*"))


def test_a_fetch_refuses_what_the_mirror_does_not_vouch_for(
    mirror: tuple[str, type[_Mirror], Path], tmp_path: Path
) -> None:
    url, _, folder = mirror
    target = resolve_location(tmp_path / "x.sqlite", TICTACTOE)
    with pytest.raises(PublishedFileError, match="given: fetch it from a mirror you trust"):
        fetch(url, target, TICTACTOE, digest="0" * 64)
    from ttt_db.game.definition import Game

    with pytest.raises(PublishedFileError, match=r"has no 4x4k4 database \(it has 3x3k3\)"):
        fetch(url, target, Game.parse("4x4k4"))
    with pytest.raises(PublishedFileError, match="no manifest at"):
        fetch(url + "elsewhere/", target, TICTACTOE)
    with pytest.raises(PublishedFileError, match="cannot read the manifest at http://127.0.0.1:1/manifest.json"):
        fetch("http://127.0.0.1:1/", target, TICTACTOE)
    with pytest.raises(PublishedFileError, match="give an http.s. URL or a folder"):
        fetch("ftp://example.org/", target, TICTACTOE)
    (folder / MANIFEST_NAME).write_text('{"format": "something else"}')
    with pytest.raises(PublishedFileError, match="is not a manifest of format"):
        fetch(str(folder), target, TICTACTOE)
    assert not (tmp_path / "x.sqlite").exists()


def test_a_pin_holds_however_the_files_path_is_spelt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 58: a pinned file read through another spelling of its path (a relative URL, `..`, a
    symbolic link, a hard link, $TTT_DB) was read unpinned, and a forgery there answered wrong."""
    folder = tmp_path / "p"
    folder.mkdir()
    monkeypatch.chdir(folder)
    built = cli("build", "--db", "sqlite:///a.sqlite", "--quiet")  # a relative URL: its pin under the file itself
    assert built.exit_code == 0, built.output
    path = folder / "a.sqlite"
    (tmp_path / "link").symlink_to(folder)
    os.link(path, tmp_path / "hard.sqlite")
    forge_code(path, "o........", CODE_OF_WORTH[1], TICTACTOE)  # resealed: only the pin can refuse it
    spellings = [
        str(path),
        "sqlite:///a.sqlite",
        f"sqlite:///{folder}/../p/a.sqlite",
        f"sqlite:///{tmp_path}/link/a.sqlite",
        str(tmp_path / "hard.sqlite"),
    ]
    for spelling in spellings:
        refused = cli("best-moves", "o........", "--db", spelling)
        assert refused.exit_code == 2 and PINNED in refused.stderr, (spelling, refused.output)
    through_env = cli("best-moves", "o........", env={"TTT_DB": f"sqlite:///{tmp_path}/link/../p/a.sqlite"})
    assert through_env.exit_code == 2 and PINNED in through_env.stderr


def test_a_deleted_files_pin_does_not_pass_to_a_new_file_given_its_inode(tmp_path: Path) -> None:
    """A pin is also kept under the file's inode, for its hard links; once the file is deleted, a new
    file the system gives that inode is another database: it is read as a file never pinned, not
    refused as a changed one (seen in the suite, where temporary files reuse inodes)."""
    from ttt_db.store.pins import _identities, _record_path

    pinned, other, new = tmp_path / "pinned.sqlite", tmp_path / "other.sqlite", tmp_path / "new.sqlite"
    assert cli("build", "--db", str(pinned), "--quiet").exit_code == 0
    assert cli("build", "--game", "3x4k3", "--db", str(other), "--quiet").exit_code == 0
    linked = tmp_path / "linked.sqlite"
    os.link(pinned, linked)  # while the pinned file is there, a hard link to it keeps its pin
    assert (
        recorded_pin(resolve_location(linked, TICTACTOE))
        == recorded_pin(resolve_location(pinned, TICTACTOE))
        is not None
    )
    shutil.copy(other, new)  # another game's database, under a path and an inode never pinned
    old_inode, new_inode = _identities(pinned)[1], _identities(new)[1]
    record = json.loads(_record_path(old_inode).read_text())
    _record_path(new_inode).write_text(json.dumps(record | {"identity": new_inode}))  # as if given that inode
    pinned.unlink()
    linked.unlink()
    assert recorded_pin(resolve_location(new, TICTACTOE)) is None
    answered = cli("best-moves", "o...........", "--game", "3x4k3", "--db", str(new))
    assert answered.exit_code == 0 and PINNED not in answered.stderr, answered.output


def test_an_unreadable_pin_record_is_an_error_that_says_how_to_renew_it(built: Path) -> None:
    from ttt_db.store.pins import _identities, _record_path

    record = _record_path(_identities(built)[0])
    assert record.exists()
    record.write_text("{ not a record")
    refused = cli("best-moves", ".........", "--db", str(built))
    assert refused.exit_code == 2
    assert f"the pin recorded for {built} cannot be read" in refused.stderr and "ttt-db verify" in refused.stderr
    proved = cli("verify", "--db", str(built))
    assert proved.exit_code == 0 and "recorded its digest in" in proved.stdout
    assert cli("best-moves", ".........", "--db", str(built)).exit_code == 0


def test_a_build_that_cannot_record_its_pin_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocked = tmp_path / "data"
    blocked.write_text("a file where the data folder would be")
    monkeypatch.setenv("XDG_DATA_HOME", str(blocked))
    result = cli("build", "--db", str(tmp_path / "t.sqlite"))
    assert result.exit_code == 0, result.output
    assert "not pinned: " in result.stdout and "was not pinned: its record" in result.stdout


def test_a_planted_link_as_the_partial_download_is_removed_not_written_through(
    mirror: tuple[str, type[_Mirror], Path], db_path: Path, tmp_path: Path
) -> None:
    """Issue 58: a symbolic link planted as the partial file made a fetch append the mirror's bytes
    to the file it pointed at, outside the target."""
    url, _, folder = mirror
    entry = json.loads((folder / MANIFEST_NAME).read_text())["databases"][0]
    victim = tmp_path / "victim.txt"
    victim.write_text("kept as it is")
    target = tmp_path / "fetched.sqlite"
    (tmp_path / f".fetched.sqlite.{entry['sha256'][:16]}.part").symlink_to(victim)
    fetched = cli("build", "--from", url, "--db", str(target))
    assert fetched.exit_code == 0, fetched.output
    assert victim.read_text() == "kept as it is" and target.read_bytes() == db_path.read_bytes()


def test_a_fetch_is_held_to_the_digest_in_the_environment(
    mirror: tuple[str, type[_Mirror], Path], tmp_path: Path
) -> None:
    """Issue 58: `build --from` ignored $TTT_DB_DIGEST: a mirror's forgery was fetched and pinned."""
    url, _, _ = mirror
    other = "ab" * 32
    refused = cli("build", "--from", url, "--db", str(tmp_path / "f.sqlite"), env={DIGEST_ENV_VAR: other})
    assert refused.exit_code == 2 and f"not the {other[:16]}... given" in refused.stderr
    assert not (tmp_path / "f.sqlite").exists()


def test_a_mirror_that_drips_is_given_up_at_the_deadline_and_its_bytes_kept(
    mirror: tuple[str, type[_Mirror], Path], tmp_path: Path
) -> None:
    url, handler, _ = mirror
    handler.drip = True
    target = tmp_path / "slow.sqlite"
    stopped = cli("build", "--from", url, "--db", str(target), "--max-seconds", "0.5")
    assert stopped.exit_code == 2 and "took longer than its time allows (--max-seconds)" in stopped.stderr
    assert not target.exists() and len(list(tmp_path.glob(".slow.sqlite.*.part"))) == 1


def test_a_redirect_away_from_http_is_refused(mirror: tuple[str, type[_Mirror], Path], tmp_path: Path) -> None:
    url, handler, _ = mirror
    handler.redirect = "ftp://127.0.0.1/ttt-db.sqlite"
    refused = cli("build", "--from", url, "--db", str(tmp_path / "r.sqlite"))
    assert refused.exit_code == 2 and "a mirror is fetched over http(s) only" in refused.stderr


def test_a_folder_mirror_whose_file_is_a_fifo_is_refused_not_waited_on(db_path: Path, tmp_path: Path) -> None:
    folder = tmp_path / "mirror"
    publish(db_path, folder)
    served = folder / "ttt-db.sqlite"
    served.unlink()
    os.mkfifo(served)
    refused = cli("build", "--from", str(folder), "--db", str(tmp_path / "q.sqlite"))
    assert refused.exit_code == 2 and "is not a regular file" in refused.stderr


def _edit_a_plain_row(conn: sqlite3.Connection) -> None:
    first = conn.execute("select min(rowid) from ttt_positions where depth = 3").fetchone()[0]
    conn.execute("update ttt_positions set remoteness = remoteness + 2 where rowid = ?", (first,))
    conn.commit()


ALTERED = "plain table ttt_positions not as its build wrote it"


def test_a_pinned_read_and_publish_refuse_a_file_whose_plain_rows_were_edited(built: Path, tmp_path: Path) -> None:
    """Issue 58: an edited ttt_positions row in a pinned file was listed under its clean digest."""
    digest = _digest(built)
    copy = tmp_path / "copy.sqlite"
    shutil.copyfile(built, copy)
    with closing(sqlite3.connect(built)) as conn:
        _edit_a_plain_row(conn)
    pin = recorded_pin(resolve_location(built, TICTACTOE))
    assert pin is not None and _digest(built) == pin.digest  # the digest is over the meta, not each row
    refused = cli("best-moves", "ox..x....", "--db", str(built))
    assert refused.exit_code == 2 and ALTERED in refused.stderr
    refused = cli("publish", "--db", str(built), str(tmp_path / "mirror"))
    assert refused.exit_code == 2 and ALTERED in refused.stderr
    assert not (tmp_path / "mirror" / MANIFEST_NAME).exists()
    with closing(sqlite3.connect(copy)) as conn:
        _edit_a_plain_row(conn)
    given = cli("best-moves", "ox..x....", "--db", str(copy), "--digest", digest)
    assert given.exit_code == 2 and ALTERED in given.stderr
    assert cli("best-moves", "ox..x....", "--db", str(copy)).exit_code == 0  # unpinned: the core only
    unpinned = cli("publish", "--db", str(copy), str(tmp_path / "mirror"))
    assert unpinned.exit_code == 2 and ALTERED in unpinned.stderr


def test_a_pinned_file_has_its_plain_rows_read_once_per_state(
    built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rows are read at the first pinned open and again only when the file (or its write-ahead
    log) changed: an edit whose modification time is set back, or one held in the log by a writer
    still open, is refused all the same."""
    reads = []
    counted = plain.altered_tables
    monkeypatch.setattr(plain, "altered_tables", lambda *args: reads.append(1) or counted(*args))
    for _ in range(3):
        open_database(built).close()
    assert len(reads) == 1
    before = os.stat(built)
    with closing(sqlite3.connect(built)) as conn:
        _edit_a_plain_row(conn)
    os.utime(built, ns=(before.st_atime_ns, before.st_mtime_ns))
    with pytest.raises(DatabaseDamagedError, match=ALTERED):
        open_database(built)
    assert len(reads) == 2

    logged = tmp_path / "logged.sqlite"
    assert cli("build", "--db", str(logged), "--quiet").exit_code == 0
    with closing(sqlite3.connect(logged)) as conn:
        assert conn.execute("pragma journal_mode = wal").fetchone() == ("wal",)
    open_database(logged).close()
    writer = sqlite3.connect(logged)
    try:
        writer.execute("pragma wal_autocheckpoint = 0")
        _edit_a_plain_row(writer)
        with pytest.raises(DatabaseDamagedError, match=ALTERED):
            open_database(logged)
    finally:
        writer.close()
