"""How the variable fields of a stored row and the node lists are encoded: one place for the
builder, which writes them in bulk, and for `ttt_db.store.decode`, which reads them back and
checks every value.

- A set of moves (`best_moves`, `best_moves_shortest`) is an integer bit mask: bit c is cell c.
- `move_values` is a blob of one byte per cell: 0 where the cell is taken, else
  `(rank + 1) << 5 | remoteness`, the rank of the move's value for the mover (0 loss, 1 draw,
  2 win: `ttt_db.game.rules.VALUES`) and the plies left after it (at most 16).
- A node list is its board keys in (depth, key) order as differences from the previous key,
  signed 32-bit little-endian, zlib-compressed: keys ascend within a depth, so most differences
  are small and the 9.7 million keys of 4x4k4's `all` take a few megabytes.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from typing import Any, Final

from ttt_db.game.rules import VALUES, Value

REMOTENESS_BITS: Final = 5
REMOTENESS_MASK: Final = (1 << REMOTENESS_BITS) - 1


def mask_of_moves(moves: tuple[int, ...] | list[int]) -> int:
    mask = 0
    for move in moves:
        mask |= 1 << move
    return mask


def move_value_byte(value: Value, remoteness: int) -> int:
    return (VALUES.index(value) + 1) << REMOTENESS_BITS | remoteness


def encode_keys(keys: Sequence[int] | Any) -> bytes:
    """A node list's keys (a sequence or a numpy array, in (depth, key) order), encoded."""
    import numpy as np

    deltas = np.diff(np.asarray(keys, dtype=np.int64), prepend=0).astype("<i4")
    return zlib.compress(deltas.tobytes(), 1)
