"""The code byte: one board's value and remoteness, as the ranked core stores it.

    0                                   an unreachable slot, or not its class's representative
    1 + (value + 1) * 64 + remoteness   value -1 loss, 0 draw, 1 win for the side to move;
                                        remoteness the plies to the end under best play

The same byte as the C floor (tests/floor/mnk_level.c) writes, so a level can be compared with its output
byte for byte. A finished board is a loss in 0 for the side that would move next (the other side
has a line) or a draw in 0 (a full board).

The retrograde rule on codes: `WORTH[child's code]` is a move's worth to the player making it
(larger is better: a win sooner, a draw, a loss later; its value class in the top two bits), and
`CODE_OF_WORTH[the best move's worth]` the code of the board it is played from.
"""

from __future__ import annotations

from typing import Final

from ttt_db.game.rules import VALUES, Value, opposite_value, value_rank

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


def _worth_tables() -> tuple[bytes, bytes]:
    worth = bytearray(256)
    code = bytearray(256)
    for child in range(256):
        decoded = value_of_code(child)
        if decoded is None or decoded[1] + 1 >= REMOTENESS_LIMIT:
            continue
        value, remoteness = opposite_value(decoded[0]), decoded[1] + 1
        rank = value_rank(value)
        key = rank * REMOTENESS_LIMIT + (REMOTENESS_LIMIT - 1 - remoteness if value == "win" else remoteness)
        worth[child] = key
        code[key] = code_of(value, remoteness)
    return bytes(worth), bytes(code)


WORTH, CODE_OF_WORTH = _worth_tables()


def move_of_worth(worth: int) -> tuple[int, int]:
    """(the move's value rank for the mover: 0 loss, 1 draw, 2 win; the plies left after it)."""
    rank, low = divmod(worth, REMOTENESS_LIMIT)
    return rank, (REMOTENESS_LIMIT - 1 - low if rank == value_rank("win") else low) - 1
