"""Where the database lives: a file path or an SQLAlchemy URL, with a default that works anywhere."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ttt_db.errors import DatabaseError

DB_ENV_VAR = "TTT_DB"
DEFAULT_FILENAME = "ttt-db.sqlite"
_SQLITE_FILE_PREFIX = "sqlite:///"


@dataclass(frozen=True, slots=True)
class DatabaseLocation:
    """An SQLAlchemy URL, and the file behind it when it is an SQLite file."""

    url: str
    path: Path | None

    def __str__(self) -> str:
        return str(self.path) if self.path is not None else self.url


def default_path() -> Path:
    """`data/ttt-db.sqlite` in the project checkout; the user's data folder for a plain install."""
    checkout = Path(__file__).resolve().parent.parent
    project_data = checkout / "data"
    if (checkout / "pyproject.toml").is_file() and project_data.is_dir() and os.access(project_data, os.W_OK):
        return project_data / DEFAULT_FILENAME
    data_home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data_home) / "ttt-db" / DEFAULT_FILENAME


def _sqlite_file(url: str) -> Path | None:
    if not url.startswith(_SQLITE_FILE_PREFIX):
        return None
    name = url[len(_SQLITE_FILE_PREFIX) :].split("?", 1)[0]
    if not name or name == ":memory:" or name.startswith("file:"):
        return None
    return Path(name)


def _is_in_memory(url: str) -> bool:
    if not url.startswith("sqlite"):
        return False
    name = url.partition("://")[2].lstrip("/").split("?", 1)[0]
    return name in ("", ":memory:") or "mode=memory" in url


def resolve_location(db: str | os.PathLike[str] | DatabaseLocation | None = None) -> DatabaseLocation:
    """`db` if given, else `$TTT_DB`, else the default path. A value with `://` is a URL.

    Raises DatabaseError for an in-memory SQLite URL: it would be gone when the build ends."""
    if isinstance(db, DatabaseLocation):
        return db
    spec = db if db is not None else os.environ.get(DB_ENV_VAR) or default_path()
    text = os.fspath(spec)
    if "://" in text:
        if _is_in_memory(text):
            raise DatabaseError(
                f"{text!r} is an in-memory database, which is gone when the command ends; "
                "give a file path or a server URL"
            )
        return DatabaseLocation(text, _sqlite_file(text))
    path = Path(text).expanduser().resolve()
    return DatabaseLocation(_SQLITE_FILE_PREFIX + str(path), path)
