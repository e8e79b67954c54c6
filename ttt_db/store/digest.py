"""The content digest of a database and the chunk hashes behind it.

Every stored chunk (core and extras) has a 128-bit BLAKE2b hash of its whole row; a level's hashes
are stored in pages of `HASH_PAGE` (`ttt_chunk_hashes`), and each page's own hash is a meta entry
(`HASHES_KEY`). The content digest is SHA-256 over the meta entries (but the build's own record:
its time, duration and version) and the depth counts, so that two builds of a game have one
digest (with the same zstd: the chunks are hashed compressed). It is cheap to compute at open,
and a changed byte in any chunk, page, count or entry changes it (or fails the chunk against its
page, the page against the meta). A pinned digest (`ttt_db.store.pins`) is held
to it; every chunk read is held to its page whether pinned or not.

An extras chunk's checksum is seeded with the hash of the core chunk of its level and number
(`extras_checksum`): the extras cannot be moved onto other classes by an edit of the core alone.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Final

import msgpack

from ttt_db.store.checksum import META_CHECK_KEY
from ttt_db.store.chunks import chunk_checksum

HASH_PAGE: Final = 4096
"""Chunk hashes per stored page: a lookup reads and hashes one page of a level."""
HASH_BYTES: Final = 16
HASHES_KEY: Final = "chunk_hashes"
"""The meta entry holding every page's hash: {part: [[page hash, ...] per depth]}."""
DIGEST_KEY: Final = "content_sha256"
PARTS: Final = ("core", "extras")
BUILD_RECORD_KEYS: Final = ("built_at", "build_seconds", "package_version")
"""Meta entries that record a build (when, how long, by which version) rather than the solution:
kept, not hashed, so that every build of a game at this schema has one digest."""


def _plain(value: Any) -> Any:
    # a server driver may hand blobs back as memoryview: hash the bytes either way
    return bytes(value) if isinstance(value, memoryview) else value


def chunk_hash(game_name: str, part: str, row: Sequence[Any]) -> bytes:
    """The hash of one stored chunk's row (depth, chunk, count, blob, checksum) of `part` of a
    game's database (seeded with the game, as the checksums are): its other columns packed, then
    its blob (not copied)."""
    depth, chunk, count, blob, check = row
    packed = msgpack.packb([game_name, part, depth, chunk, count, check])
    digest = hashlib.blake2b(packed, digest_size=HASH_BYTES)
    digest.update(_plain(blob))
    return digest.digest()


def page_hash(part: str, depth: int, page: int, hashes: bytes) -> str:
    """The hash of one stored page of chunk hashes, as its meta entry holds it (hex)."""
    digest = hashlib.blake2b(f"ttt-db {part} {depth} {page} ".encode(), digest_size=HASH_BYTES)
    digest.update(hashes)
    return digest.hexdigest()


def extras_checksum(game_name: str, depth: int, chunk: int, blob: bytes, core_hash: bytes) -> int:
    """The checksum of an extras chunk, bound to the hash of its core chunk."""
    return chunk_checksum(game_name, depth, chunk, core_hash + blob, part="extras")


def content_digest(meta_entries: Mapping[str, str], depth_rows: Iterable[Sequence[int | None]]) -> str:
    """SHA-256 over every meta entry's stored text but the digest's own, the meta checksum and the
    build's record (`BUILD_RECORD_KEYS`), and the depth counts (depth, tree nodes, positions,
    canonical positions): the same for every build of a game."""
    left_out = (DIGEST_KEY, META_CHECK_KEY, *BUILD_RECORD_KEYS)
    entries = sorted((key, value) for key, value in meta_entries.items() if key not in left_out)
    packed = msgpack.packb([[list(entry) for entry in entries], [list(row) for row in depth_rows]])
    return hashlib.sha256(packed).hexdigest()


class ChunkHashes:
    """The chunk hashes of a database as they are written: fed each level's rows of each part in
    chunk order, then read back as pages and as the meta entry."""

    def __init__(self, game_name: str) -> None:
        self.game_name = game_name
        self.levels: dict[str, dict[int, bytearray]] = {part: {} for part in PARTS}

    def hashed(self, part: str, depth: int, rows: Iterable[Sequence[Any]]) -> Iterator[Sequence[Any]]:
        """`rows` of one level (in chunk order), each hashed as it passes."""
        kept = self.levels[part].setdefault(depth, bytearray())
        for row in rows:
            kept += chunk_hash(self.game_name, part, row)
            yield row

    def of(self, part: str, depth: int, chunk: int) -> bytes:
        kept = self.levels[part][depth]
        return bytes(kept[chunk * HASH_BYTES : (chunk + 1) * HASH_BYTES])

    def pages(self) -> Iterator[tuple[str, int, int, bytes]]:
        """Every page: (part, depth, page, hashes)."""
        step = HASH_PAGE * HASH_BYTES
        for part, levels in self.levels.items():
            for depth, kept in sorted(levels.items()):
                for page, start in enumerate(range(0, len(kept), step)):
                    yield part, depth, page, bytes(kept[start : start + step])

    def meta_entry(self) -> dict[str, list[list[str]]]:
        entry: dict[str, list[list[str]]] = {part: [] for part in PARTS}
        for part, depth, page, hashes in self.pages():
            found = entry[part]
            while len(found) <= depth:
                found.append([])
            found[depth].append(page_hash(part, depth, page, hashes))
        return entry
