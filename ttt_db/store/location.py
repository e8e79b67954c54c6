"""Where the database lives: a file path or an SQLAlchemy URL, with a default that works anywhere."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ttt_db.errors import DatabaseError
from ttt_db.game.definition import DEFAULT_GAME, Game

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


def default_filename(game: Game) -> str:
    """`ttt-db.sqlite` for tic-tac-toe, `ttt-db-4x4k4.sqlite` and so on for the other games."""
    return DEFAULT_FILENAME if game == DEFAULT_GAME else f"ttt-db-{game.name}.sqlite"


def default_path(game: Game) -> Path:
    """`data/ttt-db.sqlite` (or the game's own name) in the project checkout; the user's data
    folder for a plain install."""
    checkout = Path(__file__).resolve().parents[2]  # ttt_db/store/location.py -> the checkout
    project_data = checkout / "data"
    if (checkout / "pyproject.toml").is_file() and project_data.is_dir() and os.access(project_data, os.W_OK):
        return project_data / default_filename(game)
    return data_folder() / default_filename(game)


def data_folder() -> Path:
    """ttt-db's folder in the user's data folder: `$XDG_DATA_HOME/ttt-db`, else `~/.local/share/ttt-db`."""
    return Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "ttt-db"


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


def resolve_location(db: str | os.PathLike[str] | DatabaseLocation | None, game: Game) -> DatabaseLocation:
    """`db` if given, else `$TTT_DB`, else the game's default path. A value with `://` is a URL.

    Raises DatabaseError for an in-memory SQLite URL: it would be gone when the build ends."""
    if isinstance(db, DatabaseLocation):
        return db
    spec = db if db is not None else os.environ.get(DB_ENV_VAR) or default_path(game)
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
