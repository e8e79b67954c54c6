"""The decompressed chunks of the core that a reader keeps: at most a fixed number of places of
CHUNK_SLOTS bytes each, the least recently used chunk given up first, all in one private anonymous
memory map, so that one chunk's codes are a slice of it and many slots of many chunks are taken in
one gather (`ttt_db.store.core.CoreReader.codes_at`). Its pages are only memory once written.

A chunk is known by its index: the chunks of every level numbered one after another (`index`).
Not locked: its reader holds its own lock around every call, and around every read of `memory` at
a place it was given, so that no other thread reuses the place meanwhile.
"""

from __future__ import annotations

import mmap
from bisect import bisect_right
from collections import OrderedDict, deque
from itertools import accumulate

from ttt_db.store.chunks import CHUNK_SLOTS, level_chunks


class ChunkCache:
    """Up to `places` chunks of a game of `cells` cells, each at its place's CHUNK_SLOTS bytes of
    `memory`."""

    def __init__(self, cells: int, places: int) -> None:
        self.firsts = [0, *accumulate(level_chunks(cells, depth) for depth in range(cells + 1))]
        """Each level's first chunk's index, and the number of chunks last."""
        self.places = min(places, self.firsts[-1])
        # private: a forked process's cache is its own
        self.memory = mmap.mmap(-1, max(1, self.places) * CHUNK_SLOTS, flags=mmap.MAP_PRIVATE)
        self._place_of: OrderedDict[int, int] = OrderedDict()
        self._free = list(range(self.places - 1, -1, -1))

    def index(self, depth: int, number: int) -> int:
        """Level `depth`'s chunk `number`, numbered across the levels."""
        return self.firsts[depth] + number

    def chunk_of(self, index: int) -> tuple[int, int]:
        """(depth, number) of the chunk of that index."""
        depth = bisect_right(self.firsts, index) - 1
        return depth, index - self.firsts[depth]

    def __contains__(self, index: int) -> bool:
        return index in self._place_of

    def find(self, index: int) -> int | None:
        """The place holding the chunk, now the most recently used; None when it is not held."""
        place = self._place_of.get(index)
        if place is not None:
            self._place_of.move_to_end(index)
        return place

    def find_all(self, indices: list[int]) -> list[int | None]:
        """The place of each chunk (None where one is not held); when every one is held, they are
        now the most recently used, in their order."""
        places = list(map(self._place_of.get, indices))
        if None not in places:
            deque(map(self._place_of.move_to_end, indices), maxlen=0)
        return places

    def put(self, index: int, data: bytes) -> int:
        """Hold the chunk's bytes (at most CHUNK_SLOTS), at a free place or the least recently
        used chunk's; its place."""
        place = self._place_of.get(index)
        if place is None:
            place = self._free.pop() if self._free else self._place_of.popitem(last=False)[1]
        self._place_of[index] = place
        self._place_of.move_to_end(index)
        start = place * CHUNK_SLOTS
        self.memory[start : start + len(data)] = data
        return place
