"""The content digest of a database: SHA-256 over everything the build derives, computed the
same way by the writer (from the chunks it inserts, level by level) and by `verify` (from the
rows it reads back), so one changed byte anywhere in the stored content shows."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import Any

import msgpack

Level = tuple[int, Sequence[Sequence[Any]]]
"""(depth, the columns of that depth's rows in table column order, rows in chunk order)."""


def _plain(row: Sequence[Any]) -> list[Any]:
    # a server driver may hand blobs back as memoryview: hash the bytes either way
    return [bytes(value) if isinstance(value, memoryview) else value for value in row]


class ContentDigest:
    """Fed the core's and the extras' chunk rows level by level, then finished with the by-depth counts."""

    def __init__(self) -> None:
        self._sha = hashlib.sha256()

    def add_chunks(self, part: str, depth: int, rows: Sequence[Sequence[Any]]) -> None:
        """One level of `part` (`core` or `extras`): its rows in chunk order, columns in table order."""
        self._sha.update(msgpack.packb([part, depth, [_plain(row) for row in rows]]))

    def finish(self, depth_columns: Sequence[Sequence[int | None]]) -> str:
        """`depth_columns`: tree nodes, positions and canonical positions by depth."""
        self._sha.update(msgpack.packb([list(column) for column in depth_columns]))
        return self._sha.hexdigest()


def content_digest(
    core: Iterable[tuple[int, Sequence[Sequence[Any]]]],
    extras: Iterable[tuple[int, Sequence[Sequence[Any]]]],
    depth_columns: Sequence[Sequence[int | None]],
) -> str:
    """The digest of stored chunk rows grouped by level, as (depth, rows), and the depth counts."""
    digest = ContentDigest()
    for depth, rows in core:
        digest.add_chunks("core", depth, rows)
    for depth, rows in extras:
        digest.add_chunks("extras", depth, rows)
    return digest.finish(depth_columns)


def rows_by_level(rows: Iterable[Sequence[Any]]) -> Iterable[tuple[int, list[Sequence[Any]]]]:
    """Rows in (depth, chunk) order, the depth first, grouped by depth."""
    current: list[Sequence[Any]] = []
    for row in rows:
        if current and row[0] != current[0][0]:
            yield current[0][0], current
            current = []
        current.append(row)
    if current:
        yield current[0][0], current
