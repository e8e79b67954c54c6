"""Published databases: what a mirror serves (`publish`) and how a database is taken from one
(`fetch`), as tablebase mirrors publish theirs: the files, and a manifest naming each one's game,
size, SHA-256 and content digest.

    folder/manifest.json       {"format": MANIFEST_FORMAT, "databases": [entry, ...]}
    folder/ttt-db.sqlite       tic-tac-toe's database, as built
    folder/ttt-db-4x4k4.sqlite ...

A fetch downloads into a partial file beside the destination (kept when the transfer breaks, and
resumed from its end by the next fetch, with an HTTP range request), checks its size and SHA-256
against the manifest, opens it pinned to the manifest's digest, and only then moves it into place
and records the pin (`ttt_db.store.pins`): nothing is served from a file the manifest does not
vouch for.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.client import HTTPException
from pathlib import Path
from typing import Any, BinaryIO, Final

from ttt_db.errors import DatabaseError, PublishedFileError
from ttt_db.game.definition import Game
from ttt_db.json_text import read_json
from ttt_db.store.files import write_bytes_whole, write_whole
from ttt_db.store.location import DatabaseLocation, default_filename
from ttt_db.store.pins import parse_digest, pin_recorded
from ttt_db.store.tables import SCHEMA_VERSION

MANIFEST_NAME: Final = "manifest.json"
MANIFEST_FORMAT: Final = "ttt-db mirror 1"
MANIFEST_MAX_BYTES: Final = 1 << 20
BLOCK: Final = 1 << 20
ATTEMPTS: Final = 4
"""Connections a fetch opens before it gives up (each resumes where the last broke)."""
TIMEOUT_SECONDS: Final = 60.0
FETCH_SECONDS: Final = 6 * 3600.0
"""How long a fetch may take in all by default (`build --from --max-seconds`): a mirror that sends
a byte now and then never trips the timeout of one read; the bytes kept resume the next fetch."""


class _HttpRedirects(urllib.request.HTTPRedirectHandler):
    """Redirects followed to http(s) only (urllib would follow one to ftp://)."""

    def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str) -> Any:
        if not newurl.lower().startswith(("http://", "https://")):
            raise PublishedFileError(f"{req.full_url} redirects to {newurl!r}: a mirror is fetched over http(s) only")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


_OPENER: Final = urllib.request.build_opener(_HttpRedirects)

Progress = Callable[[str, int, int], None]


def _ignore(stage: str, done: int, total: int) -> None:
    return None


@dataclass(frozen=True, slots=True)
class PublishedEntry:
    """One database of a manifest."""

    game: str
    file: str
    size: int
    sha256: str
    digest: str
    schema_version: int

    def to_document(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "file": self.file,
            "size": self.size,
            "sha256": self.sha256,
            "digest": self.digest,
            "schema_version": self.schema_version,
        }

    @classmethod
    def from_document(cls, document: Any, where: str) -> PublishedEntry:
        try:
            entry = cls(
                str(document["game"]),
                str(document["file"]),
                int(document["size"]),
                parse_digest(str(document["sha256"])),
                parse_digest(str(document["digest"])),
                int(document["schema_version"]),
            )
        except (KeyError, TypeError, ValueError):
            raise PublishedFileError(f"{where} holds an entry that is not a published database: {document!r}") from None
        if Path(entry.file).name != entry.file or entry.file in ("", ".", "..") or entry.size < 0:
            raise PublishedFileError(f"{where} names a file {entry.file!r} that is not a plain name in its folder")
        return entry


def publish(
    db: str | os.PathLike[str] | DatabaseLocation | None,
    folder: Path,
    *,
    game: Game | None = None,
    digest: str | None = None,
) -> PublishedEntry:
    """Copy the database file at `db` (as `open_database` finds it, held to its pin) into `folder`
    under its game's default name, and enter it in the folder's manifest, replacing an entry of the
    same game."""
    from ttt_db.store.database import open_database

    with open_database(db, game=game, digest=digest) as database:
        if database.location.path is None:
            raise DatabaseError(f"a published database is a file: {database.location} is a server's")
        db_path = database.location.path
        game = database.game
        database.hold_plain_rows()  # its meta checked and held to its pin, its plain rows to their hashes
        digest = database.content_digest()
    folder.mkdir(parents=True, exist_ok=True)
    name = default_filename(game)
    sha = hashlib.sha256()

    def copy(stream: BinaryIO) -> None:
        with db_path.open("rb") as source:
            for block in iter(lambda: source.read(BLOCK), b""):
                sha.update(block)
                stream.write(block)

    write_whole(folder / name, copy)
    entry = PublishedEntry(game.name, name, (folder / name).stat().st_size, sha.hexdigest(), digest, SCHEMA_VERSION)
    manifest_path = folder / MANIFEST_NAME
    entries = read_manifest(manifest_path.read_bytes(), str(manifest_path)) if manifest_path.is_file() else []
    entries = [kept for kept in entries if kept.game != entry.game] + [entry]
    document = {"format": MANIFEST_FORMAT, "databases": [kept.to_document() for kept in entries]}
    write_bytes_whole(manifest_path, (json.dumps(document, indent=2) + "\n").encode())
    return entry


def read_manifest(data: bytes, where: str) -> list[PublishedEntry]:
    """The entries of a manifest's bytes; PublishedFileError saying what is wrong with it."""
    try:
        document = read_json(data)
    except ValueError as error:
        raise PublishedFileError(f"{where} is not a manifest: {error}") from None
    if not isinstance(document, dict) or document.get("format") != MANIFEST_FORMAT:
        raise PublishedFileError(f"{where} is not a manifest of format {MANIFEST_FORMAT!r}")
    databases = document.get("databases")
    if not isinstance(databases, list):
        raise PublishedFileError(f"{where} lists no databases")
    return [PublishedEntry.from_document(entry, where) for entry in databases]


@dataclass(frozen=True, slots=True)
class FetchSummary:
    source: str
    entry: PublishedEntry
    resumed_from: int  # bytes a broken fetch had kept
    pinned: Path | None
    not_pinned: str | None = None  # why the file was left unpinned (its record could not be written)

    def to_document(self, location: str) -> dict[str, Any]:
        """What `ttt-db build --from --json` prints (docs/json.md)."""
        return {
            "location": location,
            "fetched": True,
            "source": self.source,
            **self.entry.to_document(),
            "resumed_from": self.resumed_from,
            "pinned": None if self.pinned is None else str(self.pinned),
            "not_pinned": self.not_pinned,
        }


class _Source:
    """A mirror: an http(s) URL or a local folder."""

    def __init__(self, source: str) -> None:
        self.text = source
        self.is_url = source.startswith(("http://", "https://"))
        if not self.is_url and "://" in source:
            raise PublishedFileError(f"cannot fetch from {source!r}: give an http(s) URL or a folder")
        if not self.is_url and not Path(source).is_dir():
            raise PublishedFileError(f"cannot fetch from {source!r}: no such folder")

    def where(self, name: str) -> str:
        return f"{self.text.rstrip('/')}/{name}" if self.is_url else str(Path(self.text) / name)

    def manifest(self) -> bytes:
        where = self.where(MANIFEST_NAME)
        try:
            with self._open(MANIFEST_NAME, 0) as (stream, _):
                data: bytes = stream.read(MANIFEST_MAX_BYTES + 1)
        except FileNotFoundError:
            raise PublishedFileError(f"no manifest at {where} (`ttt-db publish` writes one)") from None
        except (OSError, HTTPException) as error:
            reason = getattr(error, "reason", None) or error
            raise PublishedFileError(f"cannot read the manifest at {where}: {reason}") from None
        if len(data) > MANIFEST_MAX_BYTES:
            raise PublishedFileError(f"{where} is over {MANIFEST_MAX_BYTES:,} bytes: not a manifest")
        return data

    def blocks(self, name: str, offset: int) -> Iterator[tuple[bytes, bool]]:
        """The file's bytes from `offset` in blocks; the flag says the source restarted from byte 0
        (a server that ignores ranges)."""
        with self._open(name, offset) as (stream, restarted):
            read = getattr(stream, "read1", stream.read)  # what has come: a slow sender's bytes return, not wait
            for block in iter(lambda: read(BLOCK), b""):
                yield block, restarted
                restarted = False

    @contextlib.contextmanager
    def _open(self, name: str, offset: int) -> Iterator[tuple[BinaryIO, bool]]:
        """The file from `offset`, and whether the source restarted it from byte 0 instead."""
        if not self.is_url:
            file = Path(self.text) / name
            if file.exists() and not file.is_file():  # a FIFO would block the open itself
                raise PublishedFileError(f"{file} is not a regular file")
            with file.open("rb") as stream:
                stream.seek(offset)
                yield stream, False
            return
        request = urllib.request.Request(self.where(name), headers={"User-Agent": "ttt-db"})
        if offset:
            request.add_header("Range", f"bytes={offset}-")
        try:
            response = _OPENER.open(request, timeout=TIMEOUT_SECONDS)
        except urllib.error.HTTPError as error:
            if error.code == 404:
                raise FileNotFoundError(self.where(name)) from None
            raise PublishedFileError(f"{self.where(name)}: HTTP {error.code} {error.reason}") from None
        with response:
            yield response, bool(offset) and response.status != 206


def fetch(
    source: str,
    destination: DatabaseLocation,
    game: Game,
    progress: Progress = _ignore,
    *,
    digest: str | None = None,
    max_seconds: float = FETCH_SECONDS,
) -> FetchSummary:
    """Take `game`'s database from the mirror at `source` (http(s) URL or folder) to the file at
    `destination`, resuming a broken fetch's partial file, and record its pin. `digest`: the
    content digest the database must have, from a source trusted more than the mirror (else
    `$TTT_DB_DIGEST`, else the manifest's). PublishedFileError when the mirror cannot be read, has
    no such database, its file is not the one its manifest describes (nothing is kept then), or the
    download takes more than `max_seconds` (what it has is kept, for the next fetch)."""
    from ttt_db.store.database import open_database
    from ttt_db.store.pins import pin_for

    given = pin_for(destination, digest, recorded=False)
    digest = given.digest if given is not None else None

    if destination.path is None:
        raise DatabaseError(f"a fetched database is a file: give --db a path, not {destination.url!r}")
    mirror = _Source(source)
    entries = read_manifest(mirror.manifest(), mirror.where(MANIFEST_NAME))
    entry = next((found for found in entries if found.game == game.name), None)
    if entry is None:
        offered = ", ".join(found.game for found in entries) or "none"
        raise PublishedFileError(
            f"the manifest at {mirror.where(MANIFEST_NAME)} has no {game} database (it has {offered})"
        )
    if digest is not None and parse_digest(digest) != entry.digest:
        raise PublishedFileError(
            f"the manifest at {mirror.where(MANIFEST_NAME)} gives {game} the digest {entry.digest[:16]}..., "
            f"not the {parse_digest(digest)[:16]}... given: fetch it from a mirror you trust, or build it"
        )
    if entry.schema_version != SCHEMA_VERSION:
        raise PublishedFileError(
            f"{mirror.where(entry.file)} has schema version {entry.schema_version}, this ttt-db reads "
            f"{SCHEMA_VERSION}: fetch from a mirror of this version, or build it (`ttt-db build --game {game}`)"
        )
    path = destination.path
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{entry.sha256[:16]}.part")
    if partial.is_symlink() or (partial.exists() and not partial.is_file()):
        partial.unlink()  # planted: the link itself goes, never what it points at
    resumed_from = partial.stat().st_size if partial.is_file() else 0
    _download(mirror, entry, partial, progress, time.monotonic() + max_seconds)
    sha = hashlib.sha256()
    with partial.open("rb") as stream:
        for block in iter(lambda: stream.read(BLOCK), b""):
            sha.update(block)
    if sha.hexdigest() != entry.sha256:
        partial.unlink()
        raise PublishedFileError(
            f"{mirror.where(entry.file)} hashes to {sha.hexdigest()[:16]}..., its manifest says "
            f"{entry.sha256[:16]}...: the mirror's file is not the one published; nothing was kept"
        )
    try:
        with open_database(partial, game=game, digest=entry.digest):
            pass
    except DatabaseError as error:
        partial.unlink()
        raise PublishedFileError(f"{mirror.where(entry.file)} matches its manifest but is refused: {error}") from None
    os.replace(partial, path)
    pinned, not_pinned = pin_recorded(destination, entry.digest, f"fetched from {source}")
    return FetchSummary(source, entry, resumed_from, pinned, not_pinned)


def _download(mirror: _Source, entry: PublishedEntry, partial: Path, progress: Progress, deadline: float) -> None:
    """The published file's bytes into `partial` (never through a link), from where it ends, over
    up to ATTEMPTS connections, until `deadline` (time.monotonic)."""
    failure = ""
    for _ in range(ATTEMPTS):
        have = partial.stat().st_size if partial.is_file() else 0
        if have > entry.size:  # not a prefix of this file: start again
            partial.unlink()
            have = 0
        if have == entry.size:
            return
        try:
            flags = os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | (0 if have else os.O_TRUNC)
            with os.fdopen(os.open(partial, flags, 0o644), "wb") as out:
                out.seek(have)
                for block, restarted in mirror.blocks(entry.file, have):
                    if restarted:
                        out.seek(0)
                        out.truncate()
                        have = 0
                    out.write(block)
                    have += len(block)
                    progress("download", min(have, entry.size), entry.size)
                    if have > entry.size:
                        break
                    if time.monotonic() > deadline:
                        out.flush()
                        raise PublishedFileError(
                            f"fetching {mirror.where(entry.file)} took longer than its time allows "
                            f"(--max-seconds); {have:,} bytes are kept, and the same command resumes from there"
                        )
        except (OSError, HTTPException, urllib.error.URLError) as error:
            failure = str(getattr(error, "reason", None) or error) or type(error).__name__
            continue
        if have == entry.size:
            return
        failure = f"the transfer ended at byte {have:,} of {entry.size:,}"
    raise PublishedFileError(
        f"cannot fetch {mirror.where(entry.file)}: {failure}; {partial.stat().st_size if partial.is_file() else 0:,} "
        "bytes are kept, and the same command resumes from there"
    )
