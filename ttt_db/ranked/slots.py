"""How a board becomes a slot: the dense rank of a position inside its level.

A level is every board with `d` marks (`d` moves made, `o` first): `o` holds `(d + 1) // 2` of
them. Its boards are numbered without gaps by two colex ranks (the GamesmanOne / Syzygy way, the
numbering of the C floor, tests/floor/mnk_level.c):

    slot = rank(occupied cells) * C(d, o) + rank(o's cells among the occupied ones)

where a set of cells is a bit mask (bit i is cell i), and `rank` of a mask with bits
c_0 < c_1 < ... is sum C(c_j, j + 1): its index among the masks of its size in increasing
order. `o's cells among the occupied ones` is the mask of o's cells compacted onto the occupied
cells' order (bit j set when o holds the j-th occupied cell). A level has
`C(cells, d) * C(d, o)` slots; the unreachable ones (both sides with a line, ...) stay empty.

The representative of a symmetry class is its image with the smallest slot, and its slot is the
one the database stores. This module is the scalar form, for one board at a time; the level
kernels (`ttt_db.ranked.kernels`) compute the same ranks for whole levels, and the tests hold the
two equal.
"""

from __future__ import annotations

from functools import cache
from math import comb
from typing import Final

from ttt_db.errors import UnknownGameError
from ttt_db.game.definition import Game
from ttt_db.ranked.kernels.sets import permute

O_MARK: Final = "o"
X_MARK: Final = "x"
MAX_CELLS: Final = 25
"""The largest board the ranked core numbers: its tables hold an entry per mask of the cells
(2^cells), a mask fits 32 bits, and a search's estimates stay below a win this many plies away."""


def o_count(depth: int) -> int:
    """How many of a level's marks are o's (o moves first)."""
    return (depth + 1) // 2


def level_slots(cells: int, depth: int) -> int:
    """The number of slots of level `depth` on a board of `cells` cells."""
    return comb(cells, depth) * comb(depth, o_count(depth))


@cache
def canonical_sets(game: Game, depth: int) -> int:
    """How many orbits the symmetries make of the sets of `depth` cells: Burnside's lemma, each
    symmetry fixing the sets that are unions of its cycles."""
    total = 0
    for transform in game.transforms:
        seen = [False] * game.cells
        polynomial = [1]  # coefficients: sets of each size made of whole cycles
        for start in range(game.cells):
            if seen[start]:
                continue
            length, cell = 0, start
            while not seen[cell]:
                seen[cell] = True
                cell = transform[cell]
                length += 1
            grown = polynomial + [0] * length
            for size, ways in enumerate(polynomial):
                grown[size + length] += ways
            polynomial = grown
        total += polynomial[depth] if depth < len(polynomial) else 0
    return total // len(game.transforms)


def level_work(game: Game, depth: int) -> int:
    """The level step's work on level `depth`, in boards read: every board of its canonical sets,
    and each of its children (a progress count in which every level takes its share of the time)."""
    return canonical_sets(game, depth) * comb(depth, o_count(depth)) * (game.cells - depth + 1)


def level_sizes(cells: int) -> tuple[int, ...]:
    """Slots per level, depth 0 to `cells`."""
    return tuple(level_slots(cells, depth) for depth in range(cells + 1))


def game_from_name(text: str) -> Game:
    """`Game.parse`, refusing a game of more than MAX_CELLS cells, which no database holds (what
    one would take is the builder's plan to say: `ttt-db build --plan`)."""
    game = Game.parse(text)
    if game.cells > MAX_CELLS:
        raise UnknownGameError(
            text,
            f"{game.cells} cells is more than the {MAX_CELLS} any database holds: its "
            f"{sum(level_sizes(game.cells)):,} slots; `ttt-db build --game {game} --plan` says what it would take",
        )
    return game


def colex_rank(mask: int) -> int:
    """The index of `mask` among the masks with as many bits, in increasing order."""
    rank = 0
    j = 0
    while mask:
        low = mask & -mask
        rank += comb(low.bit_length() - 1, j + 1)
        mask ^= low
        j += 1
    return rank


def colex_unrank(rank: int, bits: int) -> int:
    """The mask with `bits` bits whose `colex_rank` is `rank`."""
    mask = 0
    for j in range(bits, 0, -1):
        cell = j - 1
        while comb(cell + 1, j) <= rank:
            cell += 1
        rank -= comb(cell, j)
        mask |= 1 << cell
    return mask


def masks_of(board: str) -> tuple[int, int]:
    """(occupied cells, o's cells) of a board, as bit masks."""
    occupied = o_cells = 0
    for cell, char in enumerate(board):
        if char != ".":
            occupied |= 1 << cell
            if char == O_MARK:
                o_cells |= 1 << cell
    return occupied, o_cells


def compact(o_cells: int, occupied: int) -> int:
    """o's cells onto the occupied cells' order: bit j set when o holds the j-th occupied cell."""
    pattern = j = 0
    while occupied:
        low = occupied & -occupied
        if o_cells & low:
            pattern |= 1 << j
        occupied ^= low
        j += 1
    return pattern


def slot_of(board: str) -> tuple[int, int]:
    """(depth, slot) of a board in the stored convention (o moved first)."""
    occupied, o_cells = masks_of(board)
    depth = occupied.bit_count()
    return depth, colex_rank(occupied) * comb(depth, o_count(depth)) + colex_rank(compact(o_cells, occupied))


def board_of_slot(game: Game, depth: int, slot: int) -> str:
    """The board of a slot (the inverse of `slot_of`)."""
    per_occupied = comb(depth, o_count(depth))
    occupied = colex_unrank(slot // per_occupied, depth)
    pattern = colex_unrank(slot % per_occupied, o_count(depth))
    chars = ["."] * game.cells
    j = 0
    for cell in range(game.cells):
        if occupied >> cell & 1:
            chars[cell] = O_MARK if pattern >> j & 1 else X_MARK
            j += 1
    return "".join(chars)


def representative(board: str, game: Game) -> tuple[int, int, int]:
    """(depth, slot, transform) of the board's class representative: the image under
    `game.transforms[transform]` with the smallest slot (the first such transform). Among masks of
    as many bits colex order is numeric order, so the smallest slot is the image with the smallest
    (occupied, o's cells) masks: only that image is ranked."""
    occupied, o_cells = masks_of(board)
    tables = mask_tables(game)
    best = (occupied, o_cells)
    found = 0
    for transform in range(len(game.transforms)):
        image = permute(occupied, transform, tables), permute(o_cells, transform, tables)
        if image < best:
            best, found = image, transform
    depth = occupied.bit_count()
    slot = colex_rank(best[0]) * comb(depth, o_count(depth)) + colex_rank(compact(best[1], best[0]))
    return depth, slot, found


@cache
def mask_tables(game: Game) -> list[int]:
    """[k * 1024 + b * 256 + v]: the cells of byte value v of byte b of a mask, moved by symmetry
    k (`kernel.permute` reads them): cell i goes where `game.transforms[k]` takes it."""
    tables = [0] * (1024 * len(game.inverses))
    for k, inverse in enumerate(game.inverses):
        for b in range((game.cells + 7) // 8):  # a byte past the cells is always 0: its row stays 0
            base = k * 1024 + b * 256
            for t in range(8):
                cell = 8 * b + t
                bit = 1 << inverse[cell] if cell < game.cells else 0
                step = 1 << t
                for v in range(step):
                    tables[base + (v | step)] = tables[base + v] | bit
    return tables
