"""The extras of a game small enough to keep them (`Game.keeps_extras`): what the core cannot
give, each class's random-play odds and paths, stored for the core's representatives in slot
order, one compressed chunk per chunk of the core (`ttt_extras`).

A chunk holds, for each nonzero code of the core's chunk of the same level and number, in order,
four little-endian 64-bit integers (`EXTRAS_FIELDS`): the move orders of uniformly random play
from the board that o wins, that x wins, that are drawn (of the (cells - depth)! there are), and
the move sequences from the empty board that reach it.
"""

from __future__ import annotations

import sys
from array import array
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from ttt_db.store.codes import chunk_checksum

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

EXTRAS_FIELDS: Final = ("o_wins", "x_wins", "draws", "paths")


@dataclass(frozen=True, slots=True)
class ExtrasChunk:
    chunk: int
    classes: int
    blob: bytes
    checksum: int


def encode_extras(game_name: str, depth: int, chunk: int, values: npt.NDArray[np.int64]) -> ExtrasChunk:
    """A chunk's extras (a classes x EXTRAS_FIELDS array), compressed, with its checksum."""
    import zstandard

    from ttt_db.store.codes import ZSTD_LEVEL

    blob = zstandard.ZstdCompressor(level=ZSTD_LEVEL).compress(values.astype("<i8").tobytes())
    return ExtrasChunk(chunk, len(values), blob, chunk_checksum(game_name, depth, chunk, blob, part="extras"))


def decode_extras(data: bytes) -> array[int]:
    """The integers of a decompressed chunk, EXTRAS_FIELDS per class."""
    values = array("q")
    values.frombytes(data)
    if sys.byteorder == "big":
        values.byteswap()
    return values
