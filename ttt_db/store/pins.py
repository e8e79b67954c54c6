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
from pathlib import Path
from typing import Final

from ttt_db.errors import InvalidDigestError
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


def _record_path(path: Path) -> Path:
    name = hashlib.sha256(str(path).encode(errors="surrogateescape")).hexdigest()[:32]
    return pins_folder() / f"{name}.json"


def recorded_pin(location: DatabaseLocation) -> Pin | None:
    """The digest recorded for the file at `location`, None for a URL or a file without a record
    (or whose record cannot be read: it pins nothing)."""
    if location.path is None:
        return None
    try:
        record = json.loads(_record_path(location.path).read_text(encoding="utf-8"))
        digest = parse_digest(record["digest"])
        if record["path"] != str(location.path):
            return None
        return Pin(digest, f"recorded when {record['by']} on {record['at']}", recorded=True)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def record_pin(location: DatabaseLocation, digest: str, by: str) -> Path | None:
    """Record `digest` for the file at `location` (`by`: what wrote or proved it); the record's
    path, or None for a URL or when the data folder cannot be written (nothing is pinned then)."""
    if location.path is None:
        return None
    target = _record_path(location.path)
    record = {
        "path": str(location.path),
        "digest": parse_digest(digest),
        "by": by,
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    text = json.dumps(record, indent=1) + "\n"
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        write_whole(target, lambda stream: stream.write(text.encode()))
    except OSError:
        return None
    return target


def pin_for(location: DatabaseLocation, digest: str | None, *, recorded: bool = True) -> Pin | None:
    """The pin a read of `location` holds to: `digest` if given, else `$TTT_DB_DIGEST`, else (with
    `recorded`) the digest recorded for the file."""
    if digest is not None:
        return Pin(parse_digest(digest), "given", recorded=False)
    from_env = os.environ.get(DIGEST_ENV_VAR)
    if from_env:
        return Pin(parse_digest(from_env), f"from ${DIGEST_ENV_VAR}", recorded=False)
    return recorded_pin(location) if recorded else None
