"""How the ranked core is stored: each level's code bytes (`ttt_db.ranked.codes`, in the numbering of
`ttt_db.ranked.slots`) cut into chunks of `CHUNK_SLOTS` slots, each compressed on its own
(zstandard) and carrying a checksum seeded with the game and its place.
"""

from __future__ import annotations

import hashlib
import threading
from functools import cache
from typing import Any, Final

CHUNK_SLOTS: Final = 1 << 16
"""Slots per compressed chunk: a lookup decompresses one chunk of at most this many bytes."""
ZSTD_LEVEL: Final = 3
"""zstandard's level for every stored chunk: its default, where the codes compress about as well as
at 6 (a few percent larger) at a third of the CPU time, which is a large share of a build's."""


def level_chunks(cells: int, depth: int) -> int:
    """How many chunks hold level `depth`'s slots (the last may hold fewer than CHUNK_SLOTS)."""
    from ttt_db.ranked.slots import level_slots

    return -(-level_slots(cells, depth) // CHUNK_SLOTS)


def chunk_checksum(game_name: str, depth: int, chunk: int, blob: bytes, *, part: str = "core") -> int:
    """The checksum of one stored chunk (its compressed bytes) of the core or the extras (`part`),
    seeded with the game and its place: a chunk moved to another level, chunk number, table or
    game fails it. 32 bits, signed."""
    digest = hashlib.blake2b(f"ttt-db {part} {game_name} {depth} {chunk}".encode(), digest_size=4)
    digest.update(blob)
    return int.from_bytes(digest.digest(), "little", signed=True)


def compressor() -> Any:
    """A zstandard compressor at the stored level (one per thread)."""
    import zstandard

    return zstandard.ZstdCompressor(level=ZSTD_LEVEL)


def decompressed(blob: bytes, size: int) -> bytes:
    """A stored chunk's `size` bytes; ValueError, saying why, for a blob that is not one zstandard
    frame of exactly `size` bytes. Never more than `size` bytes are made, whatever a frame's header
    declares (zstandard allocates a declared size before it reads a byte)."""
    import zstandard

    try:
        declared = zstandard.frame_content_size(blob)
    except zstandard.ZstdError:
        raise ValueError("it is not a zstandard frame") from None
    if declared not in (size, -1):  # -1: the frame does not say
        raise ValueError(f"its frame declares {declared:,} bytes, not {size:,}")
    try:
        data: bytes = _decompressor().decompress(blob, max_output_size=size)
    except zstandard.ZstdError:
        raise ValueError("it does not decompress") from None
    if len(data) != size:
        raise ValueError(f"it decompresses to {len(data):,} bytes, not {size:,}")
    return data


_THREAD = threading.local()


def _decompressor() -> Any:
    """This thread's decompressor (one is not safe to share between threads; making one per chunk
    costs a third of a chunk's decompression)."""
    found = getattr(_THREAD, "decompressor", None)
    if found is None:
        import zstandard

        found = _THREAD.decompressor = zstandard.ZstdDecompressor()
    return found


def core_codes(blob: bytes, size: int) -> bytes | None:
    """A core chunk's `size` codes, None for the chunk of zeros (known without decompressing);
    ValueError, saying why, as `decompressed` refuses."""
    return None if blob == zero_chunk(size) else decompressed(blob, size)


@cache
def zero_chunk(length: int) -> bytes:
    """The stored bytes of a chunk of `length` zeros, compressed: a writer reuses them instead of
    compressing each such chunk, a reader knows them without decompressing."""
    blob: bytes = compressor().compress(bytes(length))
    return blob
