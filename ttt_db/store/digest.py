"""The content digest of a database: SHA-256 over everything the build derives, computed the
same way by the writer (from the rows it inserts) and by `verify` (from the rows it reads back),
so one changed byte anywhere in the stored content shows."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import msgpack


class ContentDigest:
    """Fed the position rows in table order (each row's column values, blobs as stored bytes),
    then finished with the node lists and the by-depth counts."""

    def __init__(self) -> None:
        self._sha = hashlib.sha256()

    def add_row(self, row: Sequence[Any]) -> None:
        # a server driver may hand blobs back as memoryview: hash the bytes either way
        self._sha.update(msgpack.packb([bytes(v) if isinstance(v, memoryview) else v for v in row]))

    def finish(self, node_lists: Mapping[str, list[Any]], depth_columns: Sequence[Sequence[int]]) -> str:
        """`depth_columns`: tree nodes, positions and canonical positions by depth."""
        for name in sorted(node_lists):
            self._sha.update(msgpack.packb([name, node_lists[name]]))
        self._sha.update(msgpack.packb([list(column) for column in depth_columns]))
        return self._sha.hexdigest()


def content_digest(
    position_rows: Iterable[Sequence[Any]],
    node_lists: Mapping[str, list[Any]],
    depth_columns: Sequence[Sequence[int]],
) -> str:
    digest = ContentDigest()
    for row in position_rows:
        digest.add_row(row)
    return digest.finish(node_lists, depth_columns)
