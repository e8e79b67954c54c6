"""Sets and their symmetries: a level's occupied sets ranked, a set's canonical image, and the
pattern tables that move a board from one set onto another; the constants and the scratch layout
every kernel shares."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

Ints = Any
"""An array of integers: a `bytearray` or `array` interpreted, a numpy array compiled."""

STRIDE = 32
"""Row length of the flat binomial table: binom[i * STRIDE + j] = C(i, j)."""
LOSS_NOW = 1
DRAW_NOW = 65
# scratch layout (the `small` int64 array, at least SMALL_SIZE entries)
AT_CELLS = 0  # the cells of a set, in order
AT_POS = 32  # a cell's position within another set
AT_SIGMA = 64  # a pattern position's new position
AT_LINES = 96  # the lines inside a set, as patterns (up to 64)
AT_FIXED = 160  # the symmetries that fix a set
SMALL_SIZE = 168
TABLE_SIZE = 8192
"""The `tab` scratch: a move's pattern tables, then one per symmetry fixing a set."""
u: Callable[[int], int] = operator.index
"""An index that is never negative: interpreted, the int itself (a builtin: no Python call in the
kernels' innermost loops); compiled, unsigned, so that numba adds no wraparound test (`compiled`
in `ttt_db.ranked.backend` puts its own in)."""


def next_set(v: int) -> int:
    """The next mask with as many bits (Gosper's hack); v > 0."""
    c = v & -v
    r = v + c
    return (((r ^ v) >> 2) // c) | r


def fill_ranks(n: int, binom: Ints, rank_of: Ints) -> None:
    """rank_of[mask]: the mask's colex rank among the masks of as many bits, for every mask."""
    for bits in range(n + 1):
        mask = (1 << bits) - 1
        for i in range(binom[n * STRIDE + bits]):
            rank_of[mask] = i
            if bits:
                mask = next_set(mask)


RANK_BYTES = 4 * (STRIDE + 1) * 256
"""Entries of the byte tables of colex ranks (`fill_rank_bytes`): four bytes of a mask, each after
0..STRIDE bits below it."""


def fill_rank_bytes(n: int, binom: Ints, rank_bytes: Ints) -> None:
    """rank_bytes[(b * (STRIDE + 1) + j) * 256 + byte]: what the cells of `byte`, taken as cells
    8b to 8b + 7 of a mask with j bits below them, add to the mask's colex rank (`rank_of`), for
    the bytes of n cells; rank_bytes[RANK_BYTES + byte]: the bits of `byte`."""
    for byte in range(256):
        rank_bytes[RANK_BYTES + byte] = cell_count(byte, 8)
    for b in range((n + 7) // 8):
        for j in range(n + 1):
            for byte in range(256):
                rank = 0
                k = j
                for i in range(8):
                    if byte >> i & 1:
                        k += 1
                        if k < STRIDE:
                            rank += binom[(8 * b + i) * STRIDE + k]
                rank_bytes[(b * (STRIDE + 1) + j) * 256 + byte] = rank


def mask_rank(mask: int, n: int, rank_bytes: Ints) -> int:
    """`rank_of[mask]` from the byte tables (`fill_rank_bytes`), a lookup per byte of n cells: the
    tables stay in the cache where the whole table would not."""
    rank = 0
    j = 0
    for b in range((n + 7) // 8):
        byte = mask >> 8 * b & 255
        rank += rank_bytes[u((b * (STRIDE + 1) + j) * 256 + byte)]
        j += rank_bytes[u(RANK_BYTES + byte)]
    return rank


def unrank(rank: int, bits: int, n: int, binom: Ints) -> int:
    """The mask of `bits` bits among `n` cells whose colex rank is `rank`."""
    mask = 0
    for i in range(n - 1, -1, -1):
        if bits > 0 and binom[i * STRIDE + bits] <= rank:
            mask |= 1 << i
            rank -= binom[i * STRIDE + bits]
            bits -= 1
    return mask


def permute(x: int, k: int, ptab: Ints) -> int:
    """Mask `x` moved by symmetry `k`."""
    b = 1024 * k
    return int(
        ptab[b + (x & 255)]
        | ptab[b + 256 + ((x >> 8) & 255)]
        | ptab[b + 512 + ((x >> 16) & 255)]
        | ptab[b + 768 + ((x >> 24) & 255)]
    )


def mark_sets(n: int, d: int, nsym: int, rank_of: Ints, ptab: Ints, undo: Ints, binom: Ints, ci: Ints, xf: Ints) -> int:
    """ci and xf of every set of level d (see the module); returns how many sets are canonical.
    Sets are met in rank order, so the first set met of each orbit is its canonical set, and its
    images are marked then (`undo[k]`: the symmetry undoing k)."""
    count = binom[n * STRIDE + d]
    for s in range(count):
        xf[s] = 255
    mask = (1 << d) - 1
    ncan = 0
    for s in range(count):
        if xf[s] == 255:
            xf[s] = 0
            ci[s] = ncan
            for k in range(1, nsym):
                r = rank_of[permute(mask, k, ptab)]
                if xf[r] == 255:
                    xf[r] = undo[k]
                    ci[r] = ncan
            ncan += 1
        if d:
            mask = next_set(mask)
    return ncan


def list_canonical(count: int, ci: Ints, cset: Ints) -> None:
    """cset[c]: the rank of the c-th canonical set (the first set of each index)."""
    c = 0
    for s in range(count):
        if ci[s] == c:
            cset[c] = s
            c += 1


def fill_patterns(bits: int, count: int, pat: Ints) -> None:
    """pat[i]: the i-th mask of `bits` bits in colex order."""
    mask = (1 << bits) - 1
    for i in range(count):
        pat[i] = mask
        if bits:
            mask = next_set(mask)


def fill_insert(d: int, count: int, pat: Ints, rank_of: Ints, mover_bit: int, ins: Ints) -> None:
    """ins[m * count + p]: the rank of pattern p with the mover's bit put in at position m."""
    for m in range(d + 1):
        low_mask = (1 << m) - 1
        for p in range(count):
            x = pat[p]
            ins[m * count + p] = rank_of[(x & low_mask) | (mover_bit << m) | ((x >> m) << (m + 1))]


def set_cells(mask: int, n: int, small: Ints, at: int) -> int:
    """The cells of `mask` in order, written to small[at:]; returns how many."""
    j = 0
    for cell in range(n):
        if mask >> cell & 1:
            small[at + j] = cell
            j += 1
    return j


def set_positions(mask: int, n: int, small: Ints, at: int) -> None:
    """small[at + cell]: the position of each cell of `mask` within it."""
    j = 0
    for cell in range(n):
        if mask >> cell & 1:
            small[at + cell] = j
            j += 1


def pattern_tables(small: Ints, at: int, d: int, tab: Ints, base: int) -> None:
    """tab[base:base + 1024]: four byte tables moving pattern bit i (of d) to bit small[at + i]
    (only the entries a pattern of d bits reads are written)."""
    for b in range(4):
        row = base + 256 * b
        tab[row] = 0
        for t in range(min(8, d - 8 * b)):
            bit = 1 << small[at + 8 * b + t]
            step = 1 << t
            for v in range(step):
                tab[row + (v | step)] = tab[row + v] | bit


def moved(x: int, tab: Ints, base: int) -> int:
    """Pattern x moved by the tables at tab[base:] (`pattern_tables`)."""
    return int(
        tab[u(base + (x & 255))]
        | tab[u(base + 256 + ((x >> 8) & 255))]
        | tab[u(base + 512 + ((x >> 16) & 255))]
        | tab[u(base + 768 + ((x >> 24) & 255))]
    )


def child_tables(
    mask: int,
    cell: int,
    m: int,
    d: int,
    n: int,
    o_moves: bool,
    k: int,
    ptab: Ints,
    cellimg: Ints,
    small: Ints,
    tab: Ints,
) -> int:
    """For the move at `cell` (position m among the set's cells) from a set of level d whose cells
    are small[AT_CELLS:], when the child set goes to its canonical set by symmetry k: `tab` moves a
    parent pattern onto the canonical child's pattern (k == 0: the mover's bit made room for);
    returns the mover's bit there (0 when x moves)."""
    if k == 0:
        for i in range(d):
            small[AT_SIGMA + i] = i + 1 if i >= m else i
        pattern_tables(small, AT_SIGMA, d, tab, 0)
        return (1 << m) if o_moves else 0
    image_tables(permute(mask | (1 << cell), k, ptab), k, d, n, cellimg, small, tab, 0)
    return (1 << small[AT_POS + cellimg[32 * k + cell]]) if o_moves else 0


def image_tables(image: int, k: int, d: int, n: int, cellimg: Ints, small: Ints, tab: Ints, base: int) -> None:
    """tab[base:base + 1024] (`pattern_tables`): a pattern over the set whose cells are
    small[AT_CELLS:] moved onto its image `image` under symmetry k (small[AT_POS:] left as the image's
    positions)."""
    set_positions(image, n, small, AT_POS)
    for i in range(d):
        small[AT_SIGMA + i] = small[AT_POS + cellimg[32 * k + small[AT_CELLS + i]]]
    pattern_tables(small, AT_SIGMA, d, tab, base)


def open_child(
    game: Any, below_level: Any, mask: int, cell: int, m: int, d: int, small: Ints, tab: Ints
) -> tuple[int, int, int]:
    """For the move at `cell` (position m among the cells of set `mask`, at small[AT_CELLS:]) onto
    level d + 1 (`below_level`): the child's canonical set's first slot in that level's codes, the
    symmetry k taking the child there, and (k != 0) the mover's bit there, with `tab` built
    (`child_tables`). A board's child is then `child_pattern`'s."""
    n, nsym, rank_of, ptab, cellimg, binom, lines, worth, code_of_worth, powers = game
    d1, ci1, xf1, cset1, count1, pat1 = below_level
    r1 = rank_of[mask | (1 << cell)]
    k = xf1[r1]
    add = child_tables(mask, cell, m, d, n, d % 2 == 0, k, ptab, cellimg, small, tab) if k != 0 else 0
    return ci1[r1] * count1, k, add


def child_pattern(
    p: int, pattern: int, m: int, k: int, add: int, count: int, ins: Ints, rank_of: Ints, tab: Ints
) -> int:
    """The pattern rank, within its canonical child set, of board p's (o's marks `pattern`) child
    by the move `open_child` opened (`ins` the level's insert table)."""
    return int(ins[u(m * count + p)]) if k == 0 else int(rank_of[u(moved(pattern, tab, 0) | add)])


def open_set(game: Any, d: int, s: int, small: Ints, tab: Ints) -> tuple[int, int]:
    """Set s (by rank) of level d: its cells to small[AT_CELLS:], the symmetries fixing it to
    small[AT_FIXED:] with their tables (`fixed_tables`); returns its mask and how many fix it."""
    n, nsym, rank_of, ptab, cellimg, binom, lines, worth, code_of_worth, powers = game
    mask = unrank(s, d, n, binom)
    set_cells(mask, n, small, AT_CELLS)
    nf = fixing_symmetries(mask, nsym, ptab, small)
    if nf:
        fixed_tables(mask, d, n, nf, ptab, cellimg, small, tab)
    return mask, nf


def fixing_symmetries(mask: int, nsym: int, ptab: Ints, small: Ints) -> int:
    """The symmetries other than the identity that map `mask` onto itself (small[AT_FIXED:])."""
    count = 0
    for k in range(1, nsym):
        if permute(mask, k, ptab) == mask:
            small[AT_FIXED + count] = k
            count += 1
    return count


def orbit_weight(p: int, pattern: int, nf: int, nsym: int, rank_of: Ints, tab: Ints) -> int:
    """How many boards board p's class has if p is its class's representative (its least slot), else
    0, for a board of a canonical set fixed by nf symmetries (`fixed_tables`)."""
    if nf == 0:
        return nsym
    stabiliser = 1
    for f in range(nf):
        image = moved(pattern, tab, 1024 * (1 + f))
        if image == pattern:
            stabiliser += 1
        elif rank_of[u(image)] < p:
            return 0
    return nsym // stabiliser


def fixed_tables(mask: int, d: int, n: int, nf: int, ptab: Ints, cellimg: Ints, small: Ints, tab: Ints) -> None:
    """For a set whose cells are small[AT_CELLS:] and which symmetries small[AT_FIXED:AT_FIXED + nf] map
    onto itself: tab[1024 * (1 + f):] moves a pattern by the f-th of them (`pattern_tables`)."""
    for f in range(nf):
        image_tables(mask, small[AT_FIXED + f], d, n, cellimg, small, tab, 1024 * (1 + f))


def least_image(p: int, pattern: int, nf: int, rank_of: Ints, tab: Ints) -> int:
    """The least pattern rank among board p's images under the fixing symmetries (`fixed_tables`):
    p itself when p is its class's representative."""
    least = p
    for f in range(nf):
        r = rank_of[u(moved(pattern, tab, 1024 * (1 + f)))]
        if r < least:
            least = r
    return least


def set_rank(sets: Ints, i: int) -> int:
    """The rank of a block's i-th set: sets[i], or i itself when `sets` is empty (every set)."""
    return sets[i] if len(sets) else i


def cell_count(mask: int, n: int) -> int:
    """How many of the n cells a mask holds."""
    count = 0
    for cell in range(n):
        count += mask >> cell & 1
    return count


def cells_of_pattern(pattern: int, mask: int, n: int) -> int:
    """The cells of `mask` that a pattern over it marks (bit i: the mask's i-th cell)."""
    cells = 0
    i = 0
    for cell in range(n):
        if mask >> cell & 1:
            if pattern >> i & 1:
                cells |= 1 << cell
            i += 1
    return cells


def pattern_of_cells(cells: int, mask: int, n: int) -> int:
    """Which cells of `mask` are among `cells`, as a pattern over it (bit i: its i-th cell)."""
    pattern = 0
    i = 0
    for cell in range(n):
        bit = mask >> cell & 1
        pattern |= (cells >> cell & bit) << i
        i += bit
    return pattern


def key_tables(game: Any, key_bytes: Ints) -> None:
    """key_bytes[(k * 4 + b) * 256 + byte]: the base-3 key (`image_keys`) of o's marks at the cells of
    `byte`, taken as cells 8b to 8b + 7, moved by symmetry k (x's marks count twice as much)."""
    n, nsym, rank_of, ptab, cellimg, binom, lines, worth, code_of_worth, powers = game
    for k in range(nsym):
        for b in range(4):
            for byte in range(256):
                key = 0
                for i in range(8):
                    cell = 8 * b + i
                    if byte >> i & 1 and cell < n:
                        key += powers[cellimg[32 * k + cell]]
                key_bytes[(k * 4 + b) * 256 + byte] = key
