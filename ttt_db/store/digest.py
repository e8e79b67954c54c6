"""The content digest of a database: SHA-256 over everything the build derives, computed the
same way by the writer (from the columns it inserts, level by level) and by `verify` (from the
rows it reads back), so one changed byte anywhere in the stored content shows."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import msgpack

Level = tuple[int, Sequence[Sequence[Any]]]
"""(depth, the position columns of that depth's rows in table column order, rows by key)."""


def _plain(column: Sequence[Any]) -> list[Any]:
    # a server driver may hand blobs back as memoryview: hash the bytes either way
    return [bytes(value) if isinstance(value, memoryview) else value for value in column]


class ContentDigest:
    """Fed the position columns level by level, then finished with the node lists (as stored)
    and the by-depth counts."""

    def __init__(self) -> None:
        self._sha = hashlib.sha256()

    def add_core(self, depth: int, chunks: Sequence[Sequence[Any]]) -> None:
        """One level of the core: its (depth, chunk, slots, codes, checksum) rows in chunk order."""
        self._sha.update(msgpack.packb(["core", depth, [_plain(row) for row in chunks]]))

    def add_level(self, depth: int, columns: Sequence[Sequence[Any]]) -> None:
        self._sha.update(msgpack.packb([depth, [_plain(column) for column in columns]]))

    def finish(self, node_lists: Mapping[str, tuple[int, bytes]], depth_columns: Sequence[Sequence[int | None]]) -> str:
        """`node_lists`: name -> (size, encoded keys); `depth_columns`: tree nodes, positions and
        canonical positions by depth."""
        for name in sorted(node_lists):
            size, blob = node_lists[name]
            self._sha.update(msgpack.packb([name, size, bytes(blob)]))
        self._sha.update(msgpack.packb([list(column) for column in depth_columns]))
        return self._sha.hexdigest()


def content_digest(
    levels: Iterable[Level],
    node_lists: Mapping[str, tuple[int, bytes]],
    depth_columns: Sequence[Sequence[int | None]],
    core: Iterable[Level] = (),
) -> str:
    """`core`: the core's chunk rows grouped by level, as (depth, rows)."""
    digest = ContentDigest()
    for depth, chunks in core:
        digest.add_core(depth, list(zip(*chunks, strict=True)))
    for depth, columns in levels:
        digest.add_level(depth, columns)
    return digest.finish(node_lists, depth_columns)


def levels_of_rows(rows: Iterable[Sequence[Any]], depth_index: int) -> Iterable[Level]:
    """Rows in (depth, key) order, grouped into levels of columns."""
    current: list[Sequence[Any]] = []
    for row in rows:
        if current and row[depth_index] != current[0][depth_index]:
            yield current[0][depth_index], list(zip(*current, strict=True))
            current = []
        current.append(row)
    if current:
        yield current[0][depth_index], list(zip(*current, strict=True))
