"""Export lines written in bulk from tables of pieces."""

from __future__ import annotations

from ttt_db.ranked.kernels.sets import Ints, u


def write_lines(
    rows: int,
    n: int,
    kinds: Ints,
    columns: Ints,
    bases: Ints,
    values: Ints,
    fixed: Ints,
    fixed_start: Ints,
    fixed_length: Ints,
    lists: int,
    quoted: bool,
    out: Ints,
) -> int:
    """Lines of text into out[0:], row by row, each the template's parts in turn (part t of row r
    reads values[columns[t] * rows + r], or 0 where columns[t] < 0): kind 0 the piece bases[t] +
    that value of the `fixed` pool; kind 1 the cells of that mask as a JSON list (`[0, 4]`; with
    `quoted`, in CSV's quotes when it has a comma), from the pool's pieces lists + 256 * b + byte
    (the cells of byte b of a mask, `, ` between them); kind 2 a board, that value its o's cells
    and the next column's its x's. Returns the bytes written."""
    at = 0
    parts = len(kinds)
    for r in range(rows):
        for t in range(parts):
            column = columns[t]
            value = values[u(column * rows + r)] if column >= 0 else 0
            kind = kinds[t]
            if kind == 0:
                at = _write_piece(fixed, fixed_start, fixed_length, bases[t] + value, out, at)
            elif kind == 1:
                quote = quoted and (value & (value - 1)) != 0  # two cells or more: a comma
                if quote:
                    out[u(at)] = 34  # "
                    at += 1
                out[u(at)] = 91  # [
                at += 1
                first = True
                for b in range(4):
                    byte = value >> (8 * b) & 255
                    if byte:
                        if not first:
                            out[u(at)] = 44  # ,
                            out[u(at + 1)] = 32
                            at += 2
                        first = False
                        at = _write_piece(fixed, fixed_start, fixed_length, lists + 256 * b + byte, out, at)
                out[u(at)] = 93  # ]
                at += 1
                if quote:
                    out[u(at)] = 34
                    at += 1
            else:
                x_cells = values[u((column + 1) * rows + r)]
                for cell in range(n):
                    out[u(at + cell)] = 111 if value >> cell & 1 else 120 if x_cells >> cell & 1 else 46  # o x .
                at += n
    return at


def _write_piece(fixed: Ints, fixed_start: Ints, fixed_length: Ints, piece: int, out: Ints, at: int) -> int:
    """The pool's piece `piece` written at out[at:]; returns its end."""
    start = fixed_start[u(piece)]
    length: int = fixed_length[u(piece)]
    for i in range(length):
        out[u(at + i)] = fixed[u(start + i)]
    return at + length
