"""How a `SolutionDatabase` reads: SQL text with `:named` parameters, rows as named tuples.

A local SQLite file is read through Python's own `sqlite3` module, read-only, so that a command
asking about one board does not pay for importing SQLAlchemy (longer than a whole `best-moves`
command's budget). Any other database URL is
read through SQLAlchemy, as it is written. Both run the same SQL text.
"""

from __future__ import annotations

import contextlib
import threading
from collections import namedtuple
from collections.abc import Iterator, Mapping
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ttt_db.errors import DatabaseDamagedError, ReadFailedError

if TYPE_CHECKING:
    import sqlite3

    from sqlalchemy import Engine


class Reader(Protocol):
    dialect: str

    def rows(self, sql: str, params: Mapping[str, Any] | None = None) -> list[Any]:
        """Every row of the query, each a named tuple of its columns."""
        ...

    def tuples(self, sql: str, params: Mapping[str, Any] | None = None) -> list[tuple[Any, ...]]:
        """Every row of the query, read whole, each a plain tuple (`rows` names their columns, at a
        cost a row)."""
        ...

    def stream(self, sql: str, params: Mapping[str, Any] | None = None) -> Iterator[tuple[Any, ...]]:
        """The rows of the query one at a time, as plain tuples (a level of millions of chunks)."""
        ...

    def close(self) -> None: ...


@lru_cache(maxsize=64)
def _row_type(columns: tuple[str, ...]) -> type:
    return namedtuple("Row", columns)


class SqliteFileReader:
    """A local SQLite file, opened read-only; one connection per thread (sqlite3's rule)."""

    dialect = "sqlite"

    def __init__(self, path: Path) -> None:
        self.uri = path.resolve().as_uri() + "?mode=ro"
        self._local = threading.local()
        self._opened: list[sqlite3.Connection] = []
        self._lock = threading.Lock()

    def _connection(self) -> sqlite3.Connection:
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is None:
            import sqlite3

            try:
                connection = sqlite3.connect(self.uri, uri=True, check_same_thread=False)
            except sqlite3.Error as error:
                raise ReadFailedError(f"cannot open {self.uri}: {error}") from None
            self._local.connection = connection
            with self._lock:
                self._opened.append(connection)
        return connection

    def rows(self, sql: str, params: Mapping[str, Any] | None = None) -> list[Any]:
        import sqlite3

        try:
            cursor = self._connection().execute(sql, dict(params or {}))
            if cursor.description is None:
                return []
            row_type = _row_type(tuple(column[0] for column in cursor.description))
            return [row_type(*row) for row in cursor]
        except sqlite3.Error as error:
            raise ReadFailedError(f"database error: {error}") from None
        except UnicodeDecodeError as error:
            raise _not_utf8(error) from None

    def tuples(self, sql: str, params: Mapping[str, Any] | None = None) -> list[tuple[Any, ...]]:
        import sqlite3

        try:
            return self._connection().execute(sql, dict(params or {})).fetchall()
        except sqlite3.Error as error:
            raise ReadFailedError(f"database error: {error}") from None
        except UnicodeDecodeError as error:
            raise _not_utf8(error) from None

    def stream(self, sql: str, params: Mapping[str, Any] | None = None) -> Iterator[tuple[Any, ...]]:
        import sqlite3

        try:
            cursor = self._connection().execute(sql, dict(params or {}))
        except sqlite3.Error as error:
            raise ReadFailedError(f"database error: {error}") from None
        try:
            while True:
                try:
                    row = next(cursor, None)  # a row is a tuple, never None
                except sqlite3.Error as error:
                    raise ReadFailedError(f"database error: {error}") from None
                except UnicodeDecodeError as error:
                    raise _not_utf8(error) from None
                if row is None:
                    return
                yield row
        finally:  # a stream left unfinished may be closed after its database: nothing to say then
            with contextlib.suppress(sqlite3.Error):
                cursor.close()

    def close(self) -> None:
        with self._lock:
            for connection in self._opened:
                connection.close()
            self._opened.clear()
        self._local = threading.local()


def _not_utf8(error: UnicodeDecodeError) -> DatabaseDamagedError:
    """SQLite hands back text as it is stored: in a damaged file, a table's schema (quoted in
    SQLite's own error messages) or a text column may not be UTF-8."""
    return DatabaseDamagedError(
        f"stored text is not UTF-8 ({error.reason}: byte {error.object[error.start : error.start + 1]!r})",
        "the file's schema or a text column",
    )


class EngineReader:
    """Any SQLAlchemy URL (PostgreSQL, ...): pooled connections, safe across threads."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.dialect = engine.dialect.name

    def rows(self, sql: str, params: Mapping[str, Any] | None = None) -> list[Any]:
        from sqlalchemy import text
        from sqlalchemy.exc import SQLAlchemyError

        try:
            with self.engine.connect() as connection:
                result = connection.execute(text(sql), dict(params or {}))
                row_type = _row_type(tuple(result.keys()))
                return [
                    row_type(*(bytes(value) if isinstance(value, memoryview) else value for value in row))
                    for row in result
                ]
        except SQLAlchemyError as error:
            raise ReadFailedError(f"database error: {error}".splitlines()[0]) from None

    def tuples(self, sql: str, params: Mapping[str, Any] | None = None) -> list[tuple[Any, ...]]:
        return list(self.stream(sql, params))

    def stream(self, sql: str, params: Mapping[str, Any] | None = None) -> Iterator[tuple[Any, ...]]:
        from sqlalchemy import text
        from sqlalchemy.exc import SQLAlchemyError

        try:
            with self.engine.connect() as connection:
                result = connection.execution_options(stream_results=True).execute(text(sql), dict(params or {}))
                for row in result:
                    yield tuple(bytes(value) if isinstance(value, memoryview) else value for value in row)
        except SQLAlchemyError as error:
            raise ReadFailedError(f"database error: {error}".splitlines()[0]) from None

    def close(self) -> None:
        self.engine.dispose()
