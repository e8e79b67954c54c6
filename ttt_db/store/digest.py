"""The content digest of a database: SHA-256 over everything the build derives, computed the
same way by the writer (from the chunks it inserts, level by level) and by `verify` (from the
rows it reads back), so one changed byte anywhere in the stored content shows."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import Any

import msgpack


def _plain(row: Sequence[Any]) -> list[Any]:
    # a server driver may hand blobs back as memoryview: hash the bytes either way
    return [bytes(value) if isinstance(value, memoryview) else value for value in row]


class ContentDigest:
    """Fed the core's and the extras' chunk rows level by level, then finished with the by-depth
    counts. A level is hashed as the msgpack of [part, depth, rows], fed a row at a time."""

    def __init__(self) -> None:
        self._sha = hashlib.sha256()
        self._packer = msgpack.Packer()

    def add_chunks(self, part: str, depth: int, count: int, rows: Iterable[Sequence[Any]]) -> None:
        """One level of `part` (`core` or `extras`): its `count` rows in chunk order, columns in
        table order."""
        packer = self._packer
        self._sha.update(packer.pack_array_header(3) + packer.pack(part) + packer.pack(depth))
        self._sha.update(packer.pack_array_header(count))
        for row in rows:
            self._sha.update(packer.pack(_plain(row)))

    def finish(self, depth_columns: Sequence[Sequence[int | None]]) -> str:
        """`depth_columns`: tree nodes, positions and canonical positions by depth."""
        self._sha.update(msgpack.packb([list(column) for column in depth_columns]))
        return self._sha.hexdigest()
