"""Pinned digests: the content digest (`ttt_db.store.digest`) a database must have to be read.

A pin is given (`open_database(..., digest=)`, `--digest`, `$TTT_DB_DIGEST`) or recorded: a build,
a fetch from a published manifest and a passing `verify` record the digest of the file they wrote
or proved, in the user's data folder, so a file changed after that is refused by default. A
server URL is pinned only by a given digest.
"""

from __future__ import annotations

import hashlib
import json
import os
import string
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import BinaryIO, Final

from ttt_db.errors import InvalidDigestError, PinRecordError
from ttt_db.store.files import write_whole
from ttt_db.store.location import DatabaseLocation, data_folder

DIGEST_ENV_VAR: Final = "TTT_DB_DIGEST"
DIGEST_LENGTH: Final = 64


@dataclass(frozen=True, slots=True)
class Pin:
    """A digest a database must have, and where it came from (said when a file is refused)."""

    digest: str
    source: str
    recorded: bool

    @property
    def remedy(self) -> str:
        if self.recorded:
            return (
                "it changed after ttt-db wrote or proved it: rebuild it (`ttt-db build --force`), or prove it "
                "from the rules with `ttt-db verify`, which records its digest when it passes"
            )
        return "check the digest you gave, or fetch the database again (`ttt-db build --from`)"


def parse_digest(text: str) -> str:
    """A content digest as given (64 hexadecimal digits, any case), in lower case."""
    digest = text.strip().lower()
    if len(digest) != DIGEST_LENGTH or not set(digest) <= set(string.hexdigits.lower()):
        raise InvalidDigestError(
            text, f"a content digest is {DIGEST_LENGTH} hexadecimal digits (`ttt-db info` shows it)"
        )
    return digest


def pins_folder() -> Path:
    """Where recorded pins live: `ttt-db/pins` in the user's data folder."""
    return data_folder() / "pins"


def _identities(path: Path) -> list[str]:
    """The names a file's pin is kept under: its resolved path (however it is spelt: relative,
    through `..` or a symbolic link), then its device and inode where it exists (a hard link)."""
    names = [f"path {os.path.realpath(path)}"]
    try:
        found = os.stat(path)
    except OSError:
        return names
    return [*names, f"inode {found.st_dev} {found.st_ino}"]


def _record_path(identity: str) -> Path:
    name = hashlib.sha256(identity.encode(errors="surrogateescape")).hexdigest()[:32]
    return pins_folder() / f"{name}.json"


def recorded_pin(location: DatabaseLocation) -> Pin | None:
    """The digest recorded for the file at `location` (by its resolved path, else its inode),
    None for a URL or a file without a record; PinRecordError for a record that cannot be read."""
    if location.path is None:
        return None
    for identity in _identities(location.path):
        record_path = _record_path(identity)
        try:
            text = record_path.read_text(encoding="utf-8")
        except FileNotFoundError:
            continue
        except OSError as error:
            raise PinRecordError(str(location), str(record_path), error.strerror or str(error)) from None
        try:
            record = json.loads(text)
            digest = parse_digest(record["digest"])
            if record.get("identity", identity) != identity:
                continue  # another file's record under the same name: none for this one
            return Pin(digest, f"recorded when {record['by']} on {record['at']}", recorded=True)
        except (ValueError, KeyError, TypeError):
            raise PinRecordError(str(location), str(record_path), "it is not a pin record") from None
    return None


def record_pin(location: DatabaseLocation, digest: str, by: str) -> Path | None:
    """Record `digest` for the file at `location` (`by`: what wrote or proved it), under each of
    its identities; the first record's path, or None for a URL. PinRecordError when the data
    folder cannot be written (the caller says the file is not pinned)."""
    if location.path is None:
        return None
    record = {
        "path": os.path.realpath(location.path),
        "digest": parse_digest(digest),
        "by": by,
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    written = []
    for identity in _identities(location.path):
        target = _record_path(identity)
        data = (json.dumps(record | {"identity": identity}, indent=1) + "\n").encode()
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            write_whole(target, partial(_write, data))
        except OSError as error:
            raise PinRecordError(str(location), str(target), error.strerror or str(error), writing=True) from None
        written.append(target)
    return written[0]


def _write(data: bytes, stream: BinaryIO) -> None:
    stream.write(data)


def pin_for(location: DatabaseLocation, digest: str | None, *, recorded: bool = True) -> Pin | None:
    """The pin a read of `location` holds to: `digest` if given, else `$TTT_DB_DIGEST`, else (with
    `recorded`) the digest recorded for the file."""
    if digest is not None:
        return Pin(parse_digest(digest), "given", recorded=False)
    from_env = os.environ.get(DIGEST_ENV_VAR)
    if from_env:
        return Pin(parse_digest(from_env), f"from ${DIGEST_ENV_VAR}", recorded=False)
    return recorded_pin(location) if recorded else None


def pin_recorded(location: DatabaseLocation, digest: str, by: str) -> tuple[Path | None, str | None]:
    """`record_pin`, for a writer that goes on either way: where the pin was recorded, or why the
    file is left unpinned (PinRecordError's words)."""
    try:
        return record_pin(location, digest, by), None
    except PinRecordError as error:
        return None, str(error)
