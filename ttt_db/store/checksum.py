"""The checksums the depth counts and the meta table carry, written by the builder and checked
on every read, so that a damaged database refuses to answer (the core's and the extras' chunks
carry their own: `ttt_db.store.chunks.chunk_checksum`).

Each checksum is seeded with the game the database solves (`seed`): counts moved under another
game's meta, or a meta rewritten to name another game, fail their checks, so the game a database
solves is proven by its content and not only by the meta's `rules` string.

The integer checksum folds its fields with the splitmix64 finaliser and keeps 32 bits, stored as
a signed integer: a damaged row passes by chance once in four billion.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Final

from ttt_db.store.tables import SCHEMA_VERSION

_MASK: Final = (1 << 64) - 1
_C1: Final = 0xBF58476D1CE4E5B9
_C2: Final = 0x94D049BB133111EB

DEPTH_FIELDS: Final = ("depth", "tree_nodes", "positions", "canonical_positions")


def depth_numbers(counts: Sequence[int | None]) -> list[int]:
    """A depth row's counts as its checksum folds them: tree nodes, null where not counted, as -1."""
    return [-1 if count is None else count for count in counts]


def seed(game_name: str, part: str) -> int:
    """The starting value of the checksums of one part (`depth`) of a game's database."""
    text = f"ttt-db schema {SCHEMA_VERSION} {game_name} {part}".encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "little")


def _to_int32(value: int) -> int:
    high = value >> 32
    return high - (1 << 32) if high >= 1 << 31 else high


def checksum(start: int, numbers: Iterable[int]) -> int:
    """The checksum of one row's integers."""
    h = start
    for number in numbers:
        h ^= number & _MASK
        h ^= h >> 30
        h = (h * _C1) & _MASK
        h ^= h >> 27
        h = (h * _C2) & _MASK
        h ^= h >> 31
    return _to_int32(h)


def blob_checksum(game_name: str, part: str, *fields: str | int | bytes) -> int:
    """The checksum of the meta: BLAKE2b, 32 bits."""
    digest = hashlib.blake2b(seed(game_name, part).to_bytes(8, "little"), digest_size=4)
    for field in fields:
        data = field if isinstance(field, bytes) else str(field).encode()
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return int.from_bytes(digest.digest(), "little", signed=True)


META_CHECK_KEY: Final = "checksum"


def meta_checksum(entries: Mapping[str, str]) -> int:
    """The checksum of the meta table: every entry's stored JSON text but its own, by key."""
    fields = [part for key in sorted(entries) if key != META_CHECK_KEY for part in (key, entries[key])]
    return blob_checksum("", "meta", json.dumps(fields))
