"""The content digest of a database: SHA-256 over everything the build derives, computed the
same way by the writer (from the rows it inserts) and by `verify` (from the rows it reads back),
so one changed byte anywhere in the stored content shows."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import msgpack


def content_digest(
    position_rows: Iterable[Sequence[Any]],
    node_lists: Mapping[str, list[str]],
    depth_columns: Sequence[Sequence[int]],
) -> str:
    """`position_rows`: each row's column values in table order (blobs as stored bytes);
    `depth_columns`: tree nodes, positions and canonical positions by depth."""
    digest = hashlib.sha256()
    for row in position_rows:
        # a server driver may hand blobs back as memoryview: hash the bytes either way
        digest.update(msgpack.packb([bytes(v) if isinstance(v, memoryview) else v for v in row]))
    for name in sorted(node_lists):
        digest.update(msgpack.packb([name, node_lists[name]]))
    digest.update(msgpack.packb([list(column) for column in depth_columns]))
    return digest.hexdigest()
