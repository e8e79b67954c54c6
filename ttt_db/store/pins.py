"""Pinned digests: the content digest (`ttt_db.store.digest`) a database must have to be read.

A pin is given (`open_database(..., digest=)`, `--digest`, `$TTT_DB_DIGEST`) or recorded: a build,
a fetch from a published manifest and a passing `verify` record the digest of the file they wrote
or proved, in the user's data folder, so a file changed after that is refused by default. A
server URL is pinned only by a given digest.

The digest covers the plain tables by their recorded hashes, not row by row: a pinned read holds
their rows to those hashes once for each state of the file (`file_state`: its inode, size and
change times, and its write-ahead log's), remembered beside the pins (`rows_proven`), so that an
edited row is refused and an unchanged file is not read twice.
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

from ttt_db.errors import InvalidDigestError, PinRecordError
from ttt_db.store.files import write_bytes_whole
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
    names = [_path_identity(path)]
    try:
        found = os.stat(path)
    except OSError:
        return names
    return [*names, _inode_identity(found)]


def _path_identity(path: Path) -> str:
    """A file's identity by its resolved path, however it is spelt."""
    return f"path {os.path.realpath(path)}"


def _still_linked(recorded: str, identity: str) -> bool:
    """Whether the file a record was written for is still at its path with the inode `identity`
    names: the file asked is then a hard link to it, not a new file given a deleted one's inode."""
    try:
        found = os.stat(recorded)
    except OSError:
        return False
    return identity == _inode_identity(found)


def _inode_identity(found: os.stat_result) -> str:
    return f"{_INODE}{found.st_dev} {found.st_ino}"


_INODE: Final = "inode "


def _record_path(identity: str, kind: str = "") -> Path:
    name = hashlib.sha256((kind + identity).encode(errors="surrogateescape")).hexdigest()[:32]
    return pins_folder() / f"{kind}{name}.json"


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
            if identity.startswith(_INODE) and not _still_linked(record["path"], identity):
                continue  # a deleted file's inode, taken since by another file: its record is not this file's
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
            write_bytes_whole(target, data)
        except OSError as error:
            raise PinRecordError(str(location), str(target), error.strerror or str(error), writing=True) from None
        written.append(target)
    return written[0]


_PROVEN: Final = "rows-"


def file_state(path: Path) -> list[int] | None:
    """What changes whenever a file's content may have: its device, inode, size and modification
    and change times (a change time cannot be set back), and those of its SQLite write-ahead log
    where one exists; None for a file that cannot be read."""
    state = []
    for name in (path, Path(f"{path}-wal")):
        try:
            found = os.stat(name)
        except FileNotFoundError:
            state.append(-1)
            continue
        except OSError:
            return None
        state += [found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns]
    return state


def rows_proven(location: DatabaseLocation, digest: str) -> bool:
    """Whether the plain tables' rows of the file at `location`, in its present state, were held
    to their hashes under `digest` (`remember_rows_proven`); False for a URL or where unknown."""
    if location.path is None:
        return False
    state = file_state(location.path)
    identity = _path_identity(location.path)
    try:
        record = json.loads(_record_path(identity, _PROVEN).read_text(encoding="utf-8"))
        return bool(state is not None and record == {"identity": identity, "digest": digest, "state": state})
    except (OSError, ValueError):
        return False


def remember_rows_proven(location: DatabaseLocation, digest: str, state: list[int] | None) -> None:
    """Remember that the file at `location` in `state` (`file_state` taken before its rows were
    read) had its plain tables' rows held to their hashes, unless it changed since. Only saves
    work: a folder that cannot be written costs the next read the same check."""
    if location.path is None or state is None or file_state(location.path) != state:
        return
    identity = _path_identity(location.path)
    data = (json.dumps({"identity": identity, "digest": digest, "state": state}) + "\n").encode()
    target = _record_path(identity, _PROVEN)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        write_bytes_whole(target, data)
    except OSError:
        pass


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
