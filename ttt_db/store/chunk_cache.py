"""The decompressed chunks of the core that a reader keeps: at most a fixed number of places of
CHUNK_SLOTS bytes each, the least recently used chunk given up first, all in one private anonymous
memory map, so that one chunk's codes are a slice of it and many slots of many chunks are taken in
one gather (`ttt_db.store.core.CoreReader.codes_at`). Its pages are only memory once written.

Not locked: its reader holds its own lock around every call, and around every read of `memory` at
a place it was given, so that no other thread reuses the place meanwhile.
"""

from __future__ import annotations

import mmap
from collections import OrderedDict

from ttt_db.store.chunks import CHUNK_SLOTS

ChunkKey = tuple[int, int]
"""A chunk of the core: (depth, number)."""


class ChunkCache:
    """Up to `places` chunks by (depth, number), each at its place's CHUNK_SLOTS bytes of `memory`."""

    def __init__(self, places: int) -> None:
        self.places = places
        # private: a forked process's cache is its own
        self.memory = mmap.mmap(-1, places * CHUNK_SLOTS, flags=mmap.MAP_PRIVATE)
        self._place_of: OrderedDict[ChunkKey, int] = OrderedDict()
        self._free = list(range(places - 1, -1, -1))

    def __contains__(self, key: ChunkKey) -> bool:
        return key in self._place_of

    def find(self, key: ChunkKey) -> int | None:
        """The place holding the chunk, now the most recently used; None when it is not held."""
        place = self._place_of.get(key)
        if place is not None:
            self._place_of.move_to_end(key)
        return place

    def put(self, key: ChunkKey, data: bytes) -> int:
        """Hold the chunk's bytes (at most CHUNK_SLOTS), at a free place or the least recently
        used chunk's; its place."""
        place = self._place_of.get(key)
        if place is None:
            place = self._free.pop() if self._free else self._place_of.popitem(last=False)[1]
        self._place_of[key] = place
        self._place_of.move_to_end(key)
        start = place * CHUNK_SLOTS
        self.memory[start : start + len(data)] = data
        return place
