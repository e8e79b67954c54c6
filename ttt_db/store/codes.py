"""The ranked core's code byte and its chunks: how one slot's value and remoteness are stored.

Every level of a game is an array with one byte per slot (`ttt_db.game.slots`), compressed in
independent chunks of `CHUNK_SLOTS` slots (zstandard), each with a checksum seeded with the game:

    0                                   an unreachable slot, or not its class's representative
    1 + (value + 1) * 64 + remoteness   value -1 loss, 0 draw, 1 win for the side to move;
                                        remoteness the plies to the end under best play

The same byte as ../shared/limit/mnk_dense.c writes, so a level can be compared with its output
byte for byte. A finished board is a loss in 0 for the side that would move next (the other side
has a line) or a draw in 0 (a full board).
"""

from __future__ import annotations

import hashlib
from typing import Final

from ttt_db.game.rules import VALUES, Value

CHUNK_SLOTS: Final = 1 << 16
"""Slots per compressed chunk: a lookup decompresses one chunk of at most this many bytes."""
ZSTD_LEVEL: Final = 6
REMOTENESS_LIMIT: Final = 64
"""Remoteness runs below this (a board of at most 63 cells); each value's codes are this many."""


def code_of(value: Value, remoteness: int) -> int:
    """The byte of a reachable representative slot."""
    return 1 + VALUES.index(value) * REMOTENESS_LIMIT + remoteness


LOSS_NOW: Final = code_of("loss", 0)
"""A finished board whose last mover has a line: a loss in 0 for the side to move."""
DRAW_NOW: Final = code_of("draw", 0)
"""A full board without a line: a draw in 0."""


def value_of_code(code: int) -> tuple[Value, int] | None:
    """(value for the side to move, remoteness), or None for an empty slot (0) or a byte no build
    writes (a value rank past `win`)."""
    if code == 0:
        return None
    rank, remoteness = divmod(code - 1, REMOTENESS_LIMIT)
    if rank >= len(VALUES):
        return None
    return VALUES[rank], remoteness


def code_text(code: int) -> str:
    """A code as a report names it: `win in 3`, `draw in 0`, `empty`."""
    decoded = value_of_code(code)
    return "empty" if decoded is None else f"{decoded[0]} in {decoded[1]}"


def chunk_checksum(game_name: str, depth: int, chunk: int, blob: bytes, *, part: str = "core") -> int:
    """The checksum of one stored chunk (its compressed bytes) of the core or the extras (`part`),
    seeded with the game and its place: a chunk moved to another level, chunk number, table or
    game fails it. 32 bits, signed."""
    digest = hashlib.blake2b(f"ttt-db {part} {game_name} {depth} {chunk}".encode(), digest_size=4)
    digest.update(blob)
    return int.from_bytes(digest.digest(), "little", signed=True)
