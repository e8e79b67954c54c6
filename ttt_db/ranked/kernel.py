"""The level kernels: every per-slot loop over the ranked core, written once.

The functions here are plain Python over flat arrays of integers (indexing, arithmetic, `range`,
`min`, `max`, calls to each other), so one source runs two ways (`ttt_db.ranked.backend`):
interpreted over `bytearray`s and `array`s for a game too small to pay for a compiler (no numpy,
no numba imported), and compiled by numba over numpy arrays, without the GIL, for every larger
one. Nothing here allocates: the caller hands in every output and scratch array.

Notation. A level `d` holds every board with `d` marks; its occupied sets (bit masks of `n`
cells) are ranked in colex order (`rank_of`), and a set's `P = C(d, o)` boards are ranked by the
pattern of o's marks over the set's cells (bit `i` of a pattern is the set's `i`-th cell). A
set's canonical set is the least-ranked image of it under the board's symmetries; `ci[s]` is the
index of set `s`'s canonical set among the level's canonical sets and `xf[s]` a symmetry that
maps it there. A level is held as the codes of every board of its canonical sets (`ncan * P`
bytes): any other board's code is its image's. Symmetries act on cells through `ptab` (a mask
moved a byte at a time) and `cellimg` (one cell). Tables of a pattern moved from one set onto
another are built per set (`pattern_tables`): four byte tables, so a board's image pattern is
four lookups.

Kernels take a game's arrays as one tuple, `game = (n, nsym, rank_of, ptab, cellimg, binom,
lines, worth, code_of_worth, powers)` (`RankedTables.arrays`), and a level's as another, `level =
(d, ci, xf, cset, count, pat)` (`LevelSets.arrays`, `count` the level's patterns per set).

Codes and worths (`ttt_db.ranked.codes`): `worth[child code]` is the move's worth to the mover
(larger is better, its value class in the top two bits), `code_of_worth[best worth]` the parent's
code.
"""

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
_CELLS = 0  # the cells of a set, in order
_POS = 32  # a cell's position within another set
_SIGMA = 64  # a pattern position's new position
_LINES = 96  # the lines inside a set, as patterns (up to 64)
_FIXED = 160  # the symmetries that fix a set
SMALL_SIZE = 168
TABLE_SIZE = 8192
"""The `tab` scratch: a move's pattern tables, then one per symmetry fixing a set."""
COUNTS = 12
"""counts: positions, classes, in play (positions, classes), decision (positions, classes), values
loss/draw/win (positions), values loss/draw/win (classes)."""
CODES = 256
"""A tally (`solve_sets`'s, where asked): positions by code at [code], classes by code at [CODES +
code], positions in play by how many of their moves keep their value class at [2 * CODES + k]."""


def tally_size(n: int) -> int:
    """The length of a tally of an n-cell game."""
    return 2 * CODES + n + 1


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
    are small[_CELLS:], when the child set goes to its canonical set by symmetry k: `tab` moves a
    parent pattern onto the canonical child's pattern (k == 0: the mover's bit made room for);
    returns the mover's bit there (0 when x moves)."""
    if k == 0:
        for i in range(d):
            small[_SIGMA + i] = i + 1 if i >= m else i
        pattern_tables(small, _SIGMA, d, tab, 0)
        return (1 << m) if o_moves else 0
    image_tables(permute(mask | (1 << cell), k, ptab), k, d, n, cellimg, small, tab, 0)
    return (1 << small[_POS + cellimg[32 * k + cell]]) if o_moves else 0


def image_tables(image: int, k: int, d: int, n: int, cellimg: Ints, small: Ints, tab: Ints, base: int) -> None:
    """tab[base:base + 1024] (`pattern_tables`): a pattern over the set whose cells are
    small[_CELLS:] moved onto its image `image` under symmetry k (small[_POS:] left as the image's
    positions)."""
    set_positions(image, n, small, _POS)
    for i in range(d):
        small[_SIGMA + i] = small[_POS + cellimg[32 * k + small[_CELLS + i]]]
    pattern_tables(small, _SIGMA, d, tab, base)


def open_child(
    game: Any, below_level: Any, mask: int, cell: int, m: int, d: int, small: Ints, tab: Ints
) -> tuple[int, int, int]:
    """For the move at `cell` (position m among the cells of set `mask`, at small[_CELLS:]) onto
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
    """Set s (by rank) of level d: its cells to small[_CELLS:], the symmetries fixing it to
    small[_FIXED:] with their tables (`fixed_tables`); returns its mask and how many fix it."""
    n, nsym, rank_of, ptab, cellimg, binom, lines, worth, code_of_worth, powers = game
    mask = unrank(s, d, n, binom)
    set_cells(mask, n, small, _CELLS)
    nf = fixing_symmetries(mask, nsym, ptab, small)
    if nf:
        fixed_tables(mask, d, n, nf, ptab, cellimg, small, tab)
    return mask, nf


def line_patterns(mask: int, d: int, lines: Ints, small: Ints) -> int:
    """The lines inside `mask` as patterns over its cells (small[_LINES:]); returns how many."""
    count = 0
    for li in range(len(lines)):
        line = lines[li]
        if mask & line == line:
            lp = 0
            for i in range(d):
                if line >> small[_CELLS + i] & 1:
                    lp |= 1 << i
            small[_LINES + count] = lp
            count += 1
    return count


def finished_code(pattern: int, d: int, n: int, o_moves: bool, nl: int, small: Ints) -> int:
    """The code the rules alone give a board of a set with `nl` lines inside (small[_LINES:]):
    0 unreachable (the side to move has a line, or the other side lines with no common cell),
    LOSS_NOW (the side that just moved has lines through a common cell), DRAW_NOW (a full board),
    -1 in play."""
    full = (1 << d) - 1
    mover = pattern if o_moves else full ^ pattern
    last = full ^ mover
    bad = False
    held = False
    common = full
    for li in range(nl):
        line = small[_LINES + li]
        if mover & line == line:
            bad = True
        if last & line == line:
            held = True
            common &= line
    if bad or (held and common == 0):
        return 0
    if held:
        return LOSS_NOW
    if d == n:
        return DRAW_NOW
    return -1


def fixing_symmetries(mask: int, nsym: int, ptab: Ints, small: Ints) -> int:
    """The symmetries other than the identity that map `mask` onto itself (small[_FIXED:])."""
    count = 0
    for k in range(1, nsym):
        if permute(mask, k, ptab) == mask:
            small[_FIXED + count] = k
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


def solve_sets(
    game: Any,
    level: Any,
    c0: int,
    c1: int,
    ins: Ints,
    here: Ints,
    here_from: int,
    below: Ints,
    below_level: Any,
    counts: Ints,
    tally: Ints,
    best: Ints,
    worst: Ints,
    kept: Ints,
    small: Ints,
    tab: Ints,
) -> None:
    """The level step: the codes of the boards of canonical sets c0..c1 of level d (`here`, at
    (c - here_from) * count + p) from the codes of level d + 1 (`below`, laid out by
    `below_level`; `ins` the level's insert table), and their counts added to `counts` (COUNTS,
    over each class's representative, weighted by its orbit for the positions) and, where `tally`
    is not empty (`tally_size`), to it, with the moves that keep each board's value class (`kept`:
    each board's moves counted by value class as its children are read, 3 * count of them)."""
    n, nsym, rank_of, ptab, cellimg, binom, lines, worth, code_of_worth, powers = game
    d, ci, xf, cset, count, pat = level
    o_moves = d % 2 == 0
    tallied = len(tally) > 0
    n_pos = 0
    n_can = 0
    n_play = 0
    n_playc = 0
    n_dec = 0
    n_decc = 0
    v0 = 0
    v1 = 0
    v2 = 0
    c_v0 = 0
    c_v1 = 0
    c_v2 = 0
    for c in range(c0, c1):
        mask, nf = open_set(game, d, cset[c], small, tab)
        out = (c - here_from) * count
        if d < n:
            for p in range(count):
                best[u(p)] = 0
                worst[u(p)] = 255
            if tallied:
                for j in range(3 * count):
                    kept[u(j)] = 0
            m = 0
            for cell in range(n):
                if mask >> cell & 1:
                    m += 1
                    continue
                run, k, add = open_child(game, below_level, mask, cell, m, d, small, tab)
                if k == 0:
                    row = m * count
                    for p in range(count):
                        w = worth[below[u(run + ins[u(row + p)])]]
                        best[u(p)] = max(best[u(p)], w)
                        worst[u(p)] = min(worst[u(p)], w)
                        if tallied:
                            kept[u(3 * p + (w >> 6))] += 1
                else:
                    for p in range(count):
                        x = u(pat[u(p)])
                        q = rank_of[u(tab[x & 255] | tab[256 + ((x >> 8) & 255)] | tab[512 + ((x >> 16) & 255)] | add)]
                        w = worth[below[u(run + q)]]
                        best[u(p)] = max(best[u(p)], w)
                        worst[u(p)] = min(worst[u(p)], w)
                        if tallied:
                            kept[u(3 * p + (w >> 6))] += 1
        nl = line_patterns(mask, d, lines, small)
        for p in range(count):
            code = code_of_worth[best[u(p)]] if d < n else DRAW_NOW
            if nl:
                ruled = finished_code(pat[u(p)], d, n, o_moves, nl, small)
                if ruled >= 0:
                    code = ruled
            here[u(out + p)] = code
            if code == 0:
                continue
            weight = nsym if nf == 0 else orbit_weight(p, pat[u(p)], nf, nsym, rank_of, tab)
            if weight == 0:
                continue
            if tallied:
                tally[u(code)] += weight
                tally[u(CODES + code)] += 1
                if code != LOSS_NOW and d < n:
                    tally[u(2 * CODES + kept[u(3 * p + (best[u(p)] >> 6))])] += weight
            n_pos += weight
            n_can += 1
            value = (code - 1) >> 6
            if value == 0:
                v0 += weight
                c_v0 += 1
            elif value == 1:
                v1 += weight
                c_v1 += 1
            else:
                v2 += weight
                c_v2 += 1
            if code != LOSS_NOW and d < n:
                n_play += weight
                n_playc += 1
                if (worst[u(p)] >> 6) < (best[u(p)] >> 6):
                    n_dec += weight
                    n_decc += 1
    counts[0] += n_pos
    counts[1] += n_can
    counts[2] += n_play
    counts[3] += n_playc
    counts[4] += n_dec
    counts[5] += n_decc
    counts[6] += v0
    counts[7] += v1
    counts[8] += v2
    counts[9] += c_v0
    counts[10] += c_v1
    counts[11] += c_v2


def fixed_tables(mask: int, d: int, n: int, nf: int, ptab: Ints, cellimg: Ints, small: Ints, tab: Ints) -> None:
    """For a set whose cells are small[_CELLS:] and which symmetries small[_FIXED:_FIXED + nf] map
    onto itself: tab[1024 * (1 + f):] moves a pattern by the f-th of them (`pattern_tables`)."""
    for f in range(nf):
        image_tables(mask, small[_FIXED + f], d, n, cellimg, small, tab, 1024 * (1 + f))


def least_image(p: int, pattern: int, nf: int, rank_of: Ints, tab: Ints) -> int:
    """The least pattern rank among board p's images under the fixing symmetries (`fixed_tables`):
    p itself when p is its class's representative."""
    least = p
    for f in range(nf):
        r = rank_of[u(moved(pattern, tab, 1024 * (1 + f)))]
        if r < least:
            least = r
    return least


def stored_chunks(
    game: Any,
    level: Any,
    first: int,
    chunks: int,
    chunk_slots: int,
    slots: int,
    codes: Ints,
    out: Ints,
    nonzero: Ints,
    small: Ints,
    tab: Ints,
) -> None:
    """The stored bytes of chunks first..first + chunks of level d (a level of `slots` slots in the
    stored numbering, `slot = set rank * count + p`): each class's code at its representative, 0
    elsewhere; chunk j's bytes at out[j * chunk_slots:], and nonzero[j] how many are not 0."""
    n, nsym, rank_of, ptab, cellimg, binom, lines, worth, code_of_worth, powers = game
    d, ci, xf, cset, count, pat = level
    for j in range(chunks):
        start = (first + j) * chunk_slots
        stop = min(start + chunk_slots, slots)
        base = j * chunk_slots - start
        filled = 0
        for slot in range(start, stop):
            out[u(base + slot)] = 0
        s = start // count
        while s * count < stop:
            c = ci[s]
            if cset[c] == s:
                lo = max(start, s * count)
                hi = min(stop, s * count + count)
                mask, nf = open_set(game, d, s, small, tab)
                for slot in range(lo, hi):
                    p = slot - s * count
                    code = codes[u(c * count + p)]
                    if code != 0 and (nf == 0 or least_image(p, pat[p], nf, rank_of, tab) == p):
                        out[u(base + slot)] = code
                        filled += 1
            s += 1
        nonzero[j] = filled


def take_chunks(
    level: Any,
    chunks: int,
    numbers: Ints,
    data: Ints,
    chunk_slots: int,
    slots: int,
    codes: Ints,
    damaged: Ints,
    found: int,
) -> int:
    """The stored bytes of chunks numbers[0:chunks] of level d (chunk e's at data[e * chunk_slots:],
    as many as the chunk has of the level's `slots`) into the level's codes: a canonical set's at
    its boards; any other set's must be 0, and each slot that is not is written to damaged[found:]
    (while there is room). Returns `found` plus the damaged slots."""
    d, ci, xf, cset, count, pat = level
    for e in range(chunks):
        start = numbers[e] * chunk_slots
        stop = min(start + chunk_slots, slots)
        at = e * chunk_slots - start
        s = start // count
        while s * count < stop:
            lo = max(start, s * count)
            hi = min(stop, s * count + count)
            c = ci[s]
            if cset[c] == s:
                for slot in range(lo, hi):
                    codes[u(c * count + slot - s * count)] = data[u(at + slot)]
            else:
                for slot in range(lo, hi):
                    if data[u(at + slot)] != 0:
                        if found < len(damaged):
                            damaged[found] = slot
                        found += 1
            s += 1
    return found


def fill_images(
    game: Any, level: Any, c0: int, c1: int, codes: Ints, damaged: Ints, found: int, small: Ints, tab: Ints
) -> int:
    """Every board of canonical sets c0..c1 that is not its class's representative takes the
    representative's code, as stored codes leave it 0; a stored one that is not 0 is written to
    damaged[found:] as its slot (while there is room). Returns `found` plus those."""
    n, nsym, rank_of, ptab, cellimg, binom, lines, worth, code_of_worth, powers = game
    d, ci, xf, cset, count, pat = level
    for c in range(c0, c1):
        s = cset[c]
        mask, nf = open_set(game, d, s, small, tab)
        if nf == 0:
            continue
        for p in range(count):
            least = least_image(p, pat[p], nf, rank_of, tab)
            if least != p:
                if codes[c * count + p] != 0:
                    if found < len(damaged):
                        damaged[found] = s * count + p
                    found += 1
                codes[c * count + p] = codes[c * count + least]
    return found


def differing_codes(
    game: Any,
    level: Any,
    c0: int,
    c1: int,
    found_codes: Ints,
    rule_codes: Ints,
    rule_from: int,
    out: Ints,
    out_codes: Ints,
    found: int,
    small: Ints,
    tab: Ints,
) -> int:
    """The representatives of canonical sets c0..c1 whose code in `found_codes` (at c * count + p)
    is not the one in `rule_codes` (at (c - rule_from) * count + p): their slots written to
    out[found:] and the rule's codes to out_codes[found:] (while there is room); returns `found`
    plus how many."""
    n, nsym, rank_of, ptab, cellimg, binom, lines, worth, code_of_worth, powers = game
    d, ci, xf, cset, count, pat = level
    for c in range(c0, c1):
        base = c * count
        ruled = (c - rule_from) * count
        differs = False
        for p in range(count):
            if found_codes[u(base + p)] != rule_codes[u(ruled + p)]:
                differs = True
                break
        if not differs:
            continue
        s = cset[c]
        mask, nf = open_set(game, d, s, small, tab)
        for p in range(count):
            if found_codes[base + p] != rule_codes[ruled + p] and (
                nf == 0 or least_image(p, pat[p], nf, rank_of, tab) == p
            ):
                if found < len(out):
                    out[found] = s * count + p
                    out_codes[found] = rule_codes[ruled + p]
                found += 1
    return found


def set_rank(sets: Ints, i: int) -> int:
    """The rank of a block's i-th set: sets[i], or i itself when `sets` is empty (every set)."""
    return sets[i] if len(sets) else i


def slot_moves(
    game: Any,
    level: Any,
    sets: Ints,
    i0: int,
    i1: int,
    ins: Ints,
    below: Ints,
    below_level: Any,
    codes: Ints,
    weights: Ints,
    worths: Ints,
    best: Ints,
    worst: Ints,
    best_mask: Ints,
    fast_mask: Ints,
    small: Ints,
    tab: Ints,
) -> None:
    """Every move of the boards of sets i0..i1 of a block (`set_rank`), from the codes of level
    d + 1: at slot j = (i - i0) * count + p, each move's worth (worths[j * n + cell], 0 at a taken
    cell), the best and the worst worth, the moves that keep the best value class (best_mask) and
    those that also win fastest or lose slowest, every drawing move when the best is a draw
    (fast_mask). Written at the boards a block counts (`select_slots`) in play: a code (codes[j])
    other than 0 or LOSS_NOW, a weight (weights[j]) other than 0; no move elsewhere."""
    n, nsym, rank_of, ptab, cellimg, binom, lines, worth, code_of_worth, powers = game
    d, ci, xf, cset, count, pat = level
    for i in range(i0, i1):
        mask = unrank(set_rank(sets, i), d, n, binom)
        set_cells(mask, n, small, _CELLS)
        base = (i - i0) * count
        for p in range(count):
            best[base + p] = 0
            worst[base + p] = 255
            best_mask[base + p] = 0
            fast_mask[base + p] = 0
            for cell in range(n):
                worths[(base + p) * n + cell] = 0
        m = 0
        for cell in range(n):
            if mask >> cell & 1:
                m += 1
                continue
            run, k, add = open_child(game, below_level, mask, cell, m, d, small, tab)
            for p in range(count):
                if codes[u(base + p)] <= LOSS_NOW or weights[u(base + p)] == 0:
                    continue
                w = worth[below[u(run + child_pattern(p, pat[u(p)], m, k, add, count, ins, rank_of, tab))]]
                worths[u((base + p) * n + cell)] = w
                best[u(base + p)] = max(best[u(base + p)], w)
                worst[u(base + p)] = min(worst[u(base + p)], w)
        for p in range(count):
            if codes[u(base + p)] <= LOSS_NOW or weights[u(base + p)] == 0:
                continue
            top = best[u(base + p)]
            keeping = 0
            fastest = 0
            for cell in range(n):
                w = worths[u((base + p) * n + cell)]
                if w != 0 and chosen_move(1, w, top):
                    keeping |= 1 << cell
                    if chosen_move(2, w, top):
                        fastest |= 1 << cell
            best_mask[u(base + p)] = keeping
            fast_mask[u(base + p)] = fastest


def expand_sets(game: Any, level: Any, s0: int, s1: int, codes: Ints, out: Ints, small: Ints, tab: Ints) -> None:
    """The codes of every board of sets s0..s1 (by rank) into out[(s - s0) * count + p], each its
    image's in the set's canonical set (`codes`, the level's)."""
    n, nsym, rank_of, ptab, cellimg, binom, lines, worth, code_of_worth, powers = game
    d, ci, xf, cset, count, pat = level
    for s in range(s0, s1):
        c = ci[s]
        k = xf[s]
        base = (s - s0) * count
        if k == 0:
            for p in range(count):
                out[base + p] = codes[c * count + p]
            continue
        mask = unrank(s, d, n, binom)
        set_cells(mask, n, small, _CELLS)
        image_tables(permute(mask, k, ptab), k, d, n, cellimg, small, tab, 0)
        for p in range(count):
            out[base + p] = codes[c * count + rank_of[moved(pat[p], tab, 0)]]


def orbit_weights(game: Any, level: Any, c0: int, c1: int, out: Ints, small: Ints, tab: Ints) -> None:
    """out[(c - c0) * count + p]: how many boards board p of canonical set c stands for (its class's
    size at its representative, 0 at any other board of its class)."""
    n, nsym, rank_of, ptab, cellimg, binom, lines, worth, code_of_worth, powers = game
    d, ci, xf, cset, count, pat = level
    for c in range(c0, c1):
        mask, nf = open_set(game, d, cset[c], small, tab)
        base = (c - c0) * count
        for p in range(count):
            out[base + p] = orbit_weight(p, pat[p], nf, nsym, rank_of, tab)


def board_masks(
    game: Any, level: Any, sets: Ints, i0: int, where: Ints, found: int, occupied: Ints, o_cells: Ints
) -> None:
    """The occupied cells and o's cells of the block slots where[0:found] (slot j of a block whose
    first set is i0: set i0 + j // count, pattern j % count)."""
    n, nsym, rank_of, ptab, cellimg, binom, lines, worth, code_of_worth, powers = game
    d, ci, xf, cset, count, pat = level
    for e in range(found):
        j = where[e]
        mask = unrank(set_rank(sets, i0 + j // count), d, n, binom)
        occupied[e] = mask
        o_cells[e] = cells_of_pattern(pat[j % count], mask, n)


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
        if mask >> cell & 1:
            if cells >> cell & 1:
                pattern |= 1 << i
            i += 1
    return pattern


def image_slot(game: Any, images: Ints, d: int, c: int, c_is_o: bool, r: int, r_is_o: bool) -> int:
    """The stored slot of the representative of a class (o moved first), the image with the
    smallest (occupied, o's cells) masks, ranked (`ttt_db.ranked.slots.representative`, one board at
    a time): of the board of `d` marks whose image under symmetry k has the occupied cells
    images[2k] and o's images[2k + 1], with cell c then cell r marked where they are not negative
    (o's mark where `c_is_o`, `r_is_o`): a child's or a grandchild's images are its parent's with a
    cell or two moved, no permutation."""
    n, nsym, rank_of, ptab, cellimg, binom, lines, worth, code_of_worth, powers = game
    least = 0
    least_o = 0
    for k in range(nsym):
        image = images[u(2 * k)]
        image_o = images[u(2 * k + 1)]
        if c >= 0:
            bit = 1 << cellimg[u(32 * k + c)]
            image |= bit
            image_o |= bit if c_is_o else 0
        if r >= 0:
            bit = 1 << cellimg[u(32 * k + r)]
            image |= bit
            image_o |= bit if r_is_o else 0
        if k == 0 or image < least:
            least = image
            least_o = image_o
        elif image == least:
            least_o = min(least_o, image_o)
    pattern = pattern_of_cells(least_o, least, n)
    return int(rank_of[u(least)] * binom[u(d * STRIDE + (d + 1) // 2)] + rank_of[u(pattern)])


def has_line(cells: int, lines: Ints) -> bool:
    """Whether a mark's cells (a mask) hold a winning line."""
    for li in range(len(lines)):
        line = lines[li]
        if cells & line == line:
            return True
    return False


def family_slots(
    game: Any,
    total: int,
    occupied: Ints,
    o_cells: Ints,
    own: Ints,
    child: Ints,
    ended: Ints,
    grand: Ints,
    images: Ints,
) -> None:
    """Boards (o moved first), their children and grandchildren, ranked (`image_slot`): own[i] board
    i's slot; for cell c, child[i * n + c] the slot after the mover takes c, ended[i * n + c] 1 where
    that move completes the mover's line, 2 where it fills the board, else 0, and
    grand[(i * n + c) * n + r] the slot after the reply r to a move that ends nothing. -1 (ended 0)
    wherever there is no such board: a taken cell, a finished board's moves, an ended child's
    replies. `images`: scratch for 2 * nsym (`image_slot`)."""
    n, nsym, rank_of, ptab, cellimg, binom, lines, worth, code_of_worth, powers = game
    for i in range(total):
        occ = occupied[u(i)]
        o = o_cells[u(i)]
        d = cell_count(occ, n)
        o_moves = d % 2 == 0
        mover = o if o_moves else occ ^ o
        finished = d == n or has_line(o, lines) or has_line(occ ^ o, lines)
        for k in range(nsym):
            images[u(2 * k)] = permute(occ, k, ptab)
            images[u(2 * k + 1)] = permute(o, k, ptab)
        own[u(i)] = image_slot(game, images, d, -1, False, -1, False)
        for c in range(n):
            at = i * n + c
            taken = finished or occ >> c & 1 == 1
            child[u(at)] = -1
            ended[u(at)] = 0
            end = 0
            if not taken:
                child[u(at)] = image_slot(game, images, d + 1, c, o_moves, -1, False)
                end = 1 if has_line(mover | 1 << c, lines) else 2 if d + 1 == n else 0
                ended[u(at)] = end
            for r in range(n):
                grand[u(at * n + r)] = -1
                if not taken and end == 0 and r != c and occ >> r & 1 == 0:
                    grand[u(at * n + r)] = image_slot(game, images, d + 2, c, o_moves, r, not o_moves)


def image_keys(game: Any, level: Any, sets: Ints, i0: int, where: Ints, found: int, keys: Ints) -> None:
    """keys[e * nsym + k]: the base-3 key (`Game.key`: powers[cell] = 3^(n - 1 - cell), o 1, x 2)
    of the image under symmetry k of block slot where[e] (as `board_masks` reads it)."""
    n, nsym, rank_of, ptab, cellimg, binom, lines, worth, code_of_worth, powers = game
    d, ci, xf, cset, count, pat = level
    for e in range(found):
        j = where[e]
        mask = unrank(set_rank(sets, i0 + j // count), d, n, binom)
        pattern = pat[j % count]
        for k in range(nsym):
            key = 0
            i = 0
            for cell in range(n):
                if mask >> cell & 1:
                    digit = 1 if pattern >> i & 1 else 2
                    key += digit * powers[cellimg[32 * k + cell]]
                    i += 1
            keys[e * nsym + k] = key


def class_slots(game: Any, level: Any, s0: int, s1: int, out: Ints, small: Ints, tab: Ints) -> None:
    """out[(s - s0) * count + p]: the slot of the representative of the class of board p of set s
    (sets s0..s1 by rank)."""
    n, nsym, rank_of, ptab, cellimg, binom, lines, worth, code_of_worth, powers = game
    d, ci, xf, cset, count, pat = level
    for s in range(s0, s1):
        c = ci[s]
        k = xf[s]
        canonical_set = cset[c]
        mask = unrank(s, d, n, binom)
        set_cells(mask, n, small, _CELLS)
        image_tables(permute(mask, k, ptab), k, d, n, cellimg, small, tab, 0)
        image, nf = open_set(game, d, canonical_set, small, tab)
        base = (s - s0) * count
        for p in range(count):
            q = rank_of[moved(pat[p], tab, 0)]
            if nf:
                q = least_image(q, pat[q], nf, rank_of, tab)
            out[base + p] = canonical_set * count + q


def playout_counts(
    game: Any,
    level: Any,
    c0: int,
    c1: int,
    ins: Ints,
    codes: Ints,
    below_counts: Ints,
    below_level: Any,
    ways: int,
    counts: Ints,
    small: Ints,
    tab: Ints,
) -> None:
    """counts[(c * count + p) * 3 + f]: of the `ways` = (n - d)! equally likely move orders of
    uniformly random play from each reachable board of canonical sets c0..c1, how many o wins
    (f 0), x wins (1) and draw (2): a finished board's all end as it ended, a board in play's are
    its children's (the level below's counts, laid out as its codes)."""
    n, nsym, rank_of, ptab, cellimg, binom, lines, worth, code_of_worth, powers = game
    d, ci, xf, cset, count, pat = level
    winner = 1 if d % 2 == 0 else 0  # the side that moved last
    for c in range(c0, c1):
        for p in range(count):
            code = codes[c * count + p]
            if code == LOSS_NOW:
                counts[(c * count + p) * 3 + winner] = ways
            elif code != 0 and d == n:
                counts[(c * count + p) * 3 + 2] = ways
        if d == n:
            continue
        mask = unrank(cset[c], d, n, binom)
        set_cells(mask, n, small, _CELLS)
        m = 0
        for cell in range(n):
            if mask >> cell & 1:
                m += 1
                continue
            run, k, add = open_child(game, below_level, mask, cell, m, d, small, tab)
            for p in range(count):
                code = codes[c * count + p]
                if code == 0 or code == LOSS_NOW:
                    continue
                child = run + child_pattern(p, pat[p], m, k, add, count, ins, rank_of, tab)
                for f in range(3):
                    counts[(c * count + p) * 3 + f] += below_counts[child * 3 + f]


def path_counts(
    game: Any,
    level: Any,
    c0: int,
    c1: int,
    codes: Ints,
    above_codes: Ints,
    above_paths: Ints,
    above_level: Any,
    paths: Ints,
    small: Ints,
    tab: Ints,
) -> None:
    """paths[c * count + p]: how many move sequences from the empty board reach each reachable
    board of canonical sets c0..c1 of level d > 0, the sum over its parents in play (the board
    without one of the last mover's marks) of theirs (level d - 1's, laid out as `above_level`)."""
    n, nsym, rank_of, ptab, cellimg, binom, lines, worth, code_of_worth, powers = game
    d, ci, xf, cset, count, pat = level
    d0, ci0, xf0, cset0, count0, pat0 = above_level
    last_is_o = d % 2 == 1
    for c in range(c0, c1):
        mask = unrank(cset[c], d, n, binom)
        set_cells(mask, n, small, _CELLS)
        for i in range(d):
            cell = small[_CELLS + i]
            parent = mask ^ (1 << cell)
            r0 = rank_of[parent]
            k = xf0[r0]
            run = ci0[r0] * count0
            # parent position j (of d - 1) is position j + (j >= i) here; then moved by k
            set_positions(permute(parent, k, ptab), n, small, _POS)
            for j in range(d - 1):
                own = small[_CELLS + (j + 1 if j >= i else j)]
                small[_SIGMA + j] = small[_POS + cellimg[32 * k + own]]
            pattern_tables(small, _SIGMA, d - 1, tab, 0)
            low = (1 << i) - 1
            for p in range(count):
                x = pat[p]
                if (x >> i & 1) != (1 if last_is_o else 0) or codes[c * count + p] == 0:
                    continue
                dropped = (x & low) | ((x >> (i + 1)) << i)
                q = run + rank_of[moved(dropped, tab, 0)]
                code = above_codes[q]
                if code != 0 and code != LOSS_NOW:
                    paths[c * count + p] += above_paths[q]


def marked(flags: Ints, j: int) -> bool:
    """Whether board j is marked in a bit array (bit j % 8 of byte j // 8)."""
    return bool((flags[j >> 3] >> (j & 7)) & 1)


def mark(flags: Ints, j: int) -> None:
    flags[j >> 3] |= 1 << (j & 7)


def set_marked(flags: Ints, first: int, count: int) -> bool:
    """Whether any of the `count` boards from bit `first` on (a canonical set's) is marked."""
    for j in range(first, first + count):  # noqa: SIM110 (numba compiles no generator expression)
        if marked(flags, j):
            return True
    return False


def walk_bits(flags: Ints, walks: int) -> int:
    """Where walk s's marks begin in `flags` (bit s * walk_bits): `walks` walks' marks back to
    back, in equal parts (as `reach` lays them out)."""
    return 8 * (len(flags) // walks)


def any_walk_marked(flags: Ints, walks: int, c: int, count: int) -> bool:
    """Whether any of `walks` walks (`walk_bits`) marks a board of canonical set c."""
    bits = walk_bits(flags, walks)
    for s in range(walks):  # noqa: SIM110 (numba compiles no generator expression)
        if set_marked(flags, s * bits + c * count, count):
            return True
    return False


def reach(
    game: Any,
    level: Any,
    c0: int,
    c1: int,
    ins: Ints,
    codes: Ints,
    flags: Ints,
    allowed: Ints,
    below: Ints,
    below_level: Any,
    flags_below: Ints,
    kids: Ints,
    worths: Ints,
    per: Ints,
    small: Ints,
    tab: Ints,
) -> None:
    """For each of the walks (sides) of `allowed`: mark in its part of flags_below (a bit per
    board, laid out as level d + 1's codes; walk s's part the s-th of len(allowed) equal parts)
    every child of the boards in play marked in its part of `flags` (likewise) of canonical sets
    c0..c1 that a move allowed there reaches: allowed[s] 0 every move, else the moves of that kind
    (`chosen_move`: 1 those keeping the best value class, 2 those also fastest). A set's moves are
    read once for every walk. `kids`, `worths` and `per` are `set_moves`' scratch."""
    n, nsym, rank_of, ptab, cellimg, binom, lines, worth, code_of_worth, powers = game
    d, ci, xf, cset, count, pat = level
    walks = len(allowed)
    here_bits = walk_bits(flags, walks)
    below_bits = walk_bits(flags_below, walks)
    for c in range(c0, c1):
        if not any_walk_marked(flags, walks, c, count):
            continue
        mask = set_moves(game, level, below_level, c, ins, below, kids, worths, per, small, tab)
        for s in range(walks):
            if not set_marked(flags, s * here_bits + c * count, count):
                continue
            kind = allowed[s]
            for cell in range(n):
                if mask >> cell & 1:
                    continue
                row = cell * count
                for p in range(count):
                    code = codes[u(c * count + p)]
                    if not marked(flags, s * here_bits + c * count + p) or code == 0 or code == LOSS_NOW:
                        continue
                    if kind == 0 or chosen_move(kind, worths[u(row + p)], per[u(p)]):
                        mark(flags_below, s * below_bits + kids[u(row + p)])


def share_marks(
    game: Any, level: Any, c0: int, c1: int, flags: Ints, walks: int, least: Ints, small: Ints, tab: Ints
) -> None:
    """Every board of a class marked (bits, as `reach` marks, for each of `walks` walks) when any
    of its boards is, within canonical sets c0..c1 (the images of a board of a canonical set that
    lie in it are its fixing symmetries'). `least` (count entries) is scratch: each board's
    representative in its set."""
    n, nsym, rank_of, ptab, cellimg, binom, lines, worth, code_of_worth, powers = game
    d, ci, xf, cset, count, pat = level
    bits = walk_bits(flags, walks)
    for c in range(c0, c1):
        if not any_walk_marked(flags, walks, c, count):
            continue
        mask, nf = open_set(game, d, cset[c], small, tab)
        if nf == 0:
            continue
        for p in range(count):
            least[u(p)] = least_image(p, pat[u(p)], nf, rank_of, tab)
        for s in range(walks):
            first = s * bits + c * count
            if not set_marked(flags, first, count):
                continue
            for p in range(count):
                if marked(flags, first + p):
                    mark(flags, first + least[u(p)])
            for p in range(count):
                if marked(flags, first + least[u(p)]):
                    mark(flags, first + p)


def marked_classes(
    game: Any, level: Any, c0: int, c1: int, flags: Ints, walks: int, codes: Ints, out: Ints, small: Ints, tab: Ints
) -> None:
    """Of the marked boards of canonical sets c0..c1 (bits, as `reach` marks, for each of `walks`
    walks), at each class's representative, for walk s: how many boards their classes hold
    (out[3 * s]), how many are losses now for the side to move (out[3 * s + 1]) and full boards
    drawn (out[3 * s + 2])."""
    n, nsym, rank_of, ptab, cellimg, binom, lines, worth, code_of_worth, powers = game
    d, ci, xf, cset, count, pat = level
    bits = walk_bits(flags, walks)
    for c in range(c0, c1):
        if not any_walk_marked(flags, walks, c, count):
            continue
        mask, nf = open_set(game, d, cset[c], small, tab)
        for p in range(count):
            weight = -1  # the class's size, found once for every walk that marked the board
            for s in range(walks):
                if not marked(flags, s * bits + c * count + p):
                    continue
                if weight < 0:
                    weight = orbit_weight(p, pat[p], nf, nsym, rank_of, tab)
                if weight == 0:
                    break
                out[3 * s] += weight
                code = codes[c * count + p]
                if code == LOSS_NOW:
                    out[3 * s + 1] += 1
                elif code == DRAW_NOW:
                    out[3 * s + 2] += 1


def chosen_move(kind: int, w: int, top: int) -> bool:
    """Whether a move of worth w is among the moves of `kind` at a board whose best worth is top:
    kind 1 those keeping the best value class, 2 those also fastest (every drawing move when the
    best is a draw): the one rule of best and fastest moves in bulk. Written without a branch: whether
    a move is of a kind is not predictable, and a mispredicted branch costs more than the sums."""
    return (w >> 6 == top >> 6) & ((kind == 1) | (w == top) | (top >> 6 == 1))


def set_moves(
    game: Any,
    level: Any,
    below_level: Any,
    c: int,
    ins: Ints,
    below: Ints,
    kids: Ints,
    worths: Ints,
    per: Ints,
    small: Ints,
    tab: Ints,
) -> int:
    """Every move of every board p of canonical set c of level d < n, a cell at a time (each
    cell's children lie in one run of level d + 1's codes, `below`, laid out by `below_level`):
    at kids[cell * count + p] the child's slot there, at worths[cell * count + p] the move's
    worth (0 at a taken cell); per[p] the board's best worth, per[count + p] how many of its moves
    keep its value class and per[2 * count + p] how many of those are fastest (`chosen_move`).
    Returns the set's mask."""
    n, nsym, rank_of, ptab, cellimg, binom, lines, worth, code_of_worth, powers = game
    d, ci, xf, cset, count, pat = level
    mask = unrank(cset[c], d, n, binom)
    set_cells(mask, n, small, _CELLS)
    for p in range(3 * count):
        per[u(p)] = 0
    m = 0
    for cell in range(n):
        row = cell * count
        if mask >> cell & 1:
            m += 1
            for p in range(count):
                worths[u(row + p)] = 0
            continue
        run, k, add = open_child(game, below_level, mask, cell, m, d, small, tab)
        for p in range(count):
            kid = run + child_pattern(p, pat[u(p)], m, k, add, count, ins, rank_of, tab)
            kids[u(row + p)] = kid
            w = worth[below[u(kid)]]
            worths[u(row + p)] = w
            per[u(p)] = max(per[u(p)], w)
    for cell in range(n):
        if mask >> cell & 1:
            continue
        row = cell * count
        for p in range(count):
            w = worths[u(row + p)]
            per[u(count + p)] += int((w != 0) & chosen_move(1, w, per[u(p)]))
            per[u(2 * count + p)] += int((w != 0) & chosen_move(2, w, per[u(p)]))
    return mask


def set_odds(odds: Ints, i: int, kind: int, n: int, d: int, per: Ints, count: int, shares: Ints, at: int) -> None:
    """The odds of policy i (of `kind`, its odds at odds[i * (n + 1) ** 2 * 2:]) at each board p of
    a set of level d whose moves `set_moves` gave `per`: at shares[at + 2 * p] the probability of
    a move not of its kind (`chosen_move`), then that of one of them; the policy's odds of a
    board of `legal` moves (n - d at level d), `chosen` of its kind, are at
    odds[... + (legal * (n + 1) + chosen) * 2]."""
    for p in range(count):
        chosen = per[u(count + p)] if kind == 1 else per[u(2 * count + p)]
        row = ((i * (n + 1) + n - d) * (n + 1) + chosen) * 2
        shares[u(at + 2 * p)] = odds[u(row)]
        shares[u(at + 2 * p + 1)] = odds[u(row + 1)]


def add_compensated(sums: Ints, at: int, x: Any) -> None:
    """sums[at] += x, the rounding lost kept in sums[at + len(sums) // 2] (Neumaier's sum: a total
    of millions of small probabilities is then within a few ulps); exact numbers lose nothing."""
    total = sums[u(at)]
    added = total + x
    if abs(total) >= abs(x):
        sums[u(at + len(sums) // 2)] += (total - added) + x
    else:
        sums[u(at + len(sums) // 2)] += (x - added) + total
    sums[u(at)] = added


def move_odds(shares: Ints, at: int, kind: int, per: Ints, p: int, w: int) -> float:
    """The probability of a move of worth w at board p by the policy whose odds `set_odds` put at
    shares[at:]."""
    return shares[u(at + 2 * p + int(chosen_move(kind, w, per[u(p)])))]  # type: ignore[no-any-return]


def seat_lost(code: int, mover: int, seat: int) -> bool:
    """Whether a board in play (`code`, `mover` to move: 0 o, 1 x) is lost for `seat` with best
    play: its value for the mover a loss where the seat moves, a win where the other does. Against
    an opponent that keeps the value, the seat loses from it whatever it plays."""
    value = (code - 1) >> 6
    return value == 0 if seat == mover else value == 2


def listed_in_set(listed: Ints, first: int, count: int, per: Ints) -> None:
    """per[3 * count + p]: the index in `listed` (increasing slots) of slot first + p, or -1 where
    it is not listed (a set's boards, first to first + count)."""
    for p in range(count):
        per[u(3 * count + p)] = -1
    low = 0
    high = len(listed)
    while low < high:
        middle = (low + high) // 2
        if listed[middle] < first:
            low = middle + 1
        else:
            high = middle
    while low < len(listed) and listed[low] < first + count:
        per[u(3 * count + listed[low] - first)] = low
        low += 1


def best_response_outcomes(
    game: Any,
    level: Any,
    c0: int,
    c1: int,
    ins: Ints,
    codes: Ints,
    below: Ints,
    below_level: Any,
    below_out: Ints,
    seats: Ints,
    kinds: Ints,
    odds: Ints,
    listed: Ints,
    listed_odds: Ints,
    tie: float,
    out: Ints,
    kids: Ints,
    worths: Ints,
    per: Ints,
    shares: Ints,
    small: Ints,
    tab: Ints,
) -> None:
    """The outcomes of policy 0 (`move_odds`; at the boards of slots `listed`, increasing, the
    move odds listed_odds[k * n + cell] instead) in each seat of `seats` (0 o, 1 x) against a best
    response (the child with the lowest expected score for the seat, the most losses breaking a
    tie; scores within `tie` are tied), from every board of canonical sets c0..c1 of level d, from
    those of level d + 1 (`below_out`, laid out as `out`): at out[(j * len(seats) + i) * 2],
    board j's probability that seats[i] wins, then that it loses (a draw is the rest); at a board
    the seat has lost (`seat_lost`) the best response wins, its children not read. `kids`, `worths`
    and `per` (5 * count) are `set_moves`' scratch, `shares` (2 * count) `set_odds`'."""
    n, nsym, rank_of, ptab, cellimg, binom, lines, worth, code_of_worth, powers = game
    d, ci, xf, cset, count, pat = level
    width = 2 * len(seats)
    mover = d % 2
    for c in range(c0, c1):
        first = c * count
        for p in range(count):
            if codes[u(first + p)] == LOSS_NOW:
                for i in range(len(seats)):
                    out[u((first + p) * width + i * 2 + (1 if seats[i] == mover else 0))] = 1
        if d == n:
            continue
        mask = set_moves(game, level, below_level, c, ins, below, kids, worths, per, small, tab)
        listed_in_set(listed, first, count, per)
        set_odds(odds, 0, kinds[0], n, d, per, count, shares, 0)
        for i in range(len(seats)):
            for p in range(count):
                code = codes[u(first + p)]
                counted = code > LOSS_NOW and not seat_lost(code, mover, seats[i])
                per[u(4 * count + p)] = int(counted)
                if code > LOSS_NOW and not counted:
                    out[u((first + p) * width + i * 2 + 1)] = 1
            opening = True
            for cell in range(n):
                if mask >> cell & 1:
                    continue
                row = cell * count
                for p in range(count):
                    if per[u(4 * count + p)] == 0:
                        continue
                    at = (first + p) * width + i * 2
                    child = kids[u(row + p)] * width + i * 2
                    if seats[i] == mover:
                        k = per[u(3 * count + p)]
                        if k < 0:
                            q = move_odds(shares, 0, kinds[0], per, p, worths[u(row + p)])
                        else:
                            q = listed_odds[u(k * n + cell)]
                        if q != 0:  # a move the policy plays (not a perfect player's other moves)
                            out[u(at)] += q * below_out[u(child)]
                            out[u(at + 1)] += q * below_out[u(child + 1)]
                        continue
                    w = below_out[u(child)]
                    lo = below_out[u(child + 1)]
                    won = out[u(at)]
                    lost = out[u(at + 1)]
                    lower = opening | (w - lo < won - lost - tie) | ((w - lo <= won - lost + tie) & (lo > lost))
                    out[u(at)] = w if lower else won
                    out[u(at + 1)] = lo if lower else lost
                opening = False


def policy_reach(
    game: Any,
    level: Any,
    c0: int,
    c1: int,
    ins: Ints,
    codes: Ints,
    below: Ints,
    below_level: Any,
    seat: int,
    opponents: Ints,
    keeps: Ints,
    mass: Ints,
    below_mass: Ints,
    kinds: Ints,
    odds: Ints,
    listed: Ints,
    listed_odds: Ints,
    lost: Ints,
    ends: Ints,
    kids: Ints,
    worths: Ints,
    per: Ints,
    shares: Ints,
    small: Ints,
    tab: Ints,
) -> None:
    """Play forward from canonical sets c0..c1 of level d, policy 0 (`move_odds`, or its odds
    `listed` as `best_response_outcomes` reads them) in `seat` (0 o, 1 x) against each policy f
    of `opponents` (indices of `kinds`): mass[seat * H + j * nf + f] (H half of `mass`: a seat's
    apart from the other's, so that two threads never write one cache line), the probability that
    the play reaches board j's class, is passed to each child's slot in below_mass, laid out alike
    (`gather_mass` then moves it to the class's representative). At a board its mover has lost,
    it is added to ends[(seat * nf + f) * 2], the seat's wins, or to the entry after, its losses
    (`add_compensated`: ends' second half keeps the rounding);
    so is it at a board the seat has lost (`seat_lost`) against an opponent o that keeps the value
    (keeps[o] 1: it never plays a move outside its kind), and carried no further. Where the policy
    moves (seat d % 2) and `lost` is not empty, lost[j] at a board in play it reaches is what it
    gives up there: the board's value (1, 0, -1 for the mover) less its moves' expected value. The
    two seats touch apart entries: they may run at once. `kids`, `worths` and `per` (5 * count:
    whether a board is carried on at per[4 * count + p]) are `set_moves`' scratch, `shares`
    (2 * count * nf) `set_odds`'."""
    n, nsym, rank_of, ptab, cellimg, binom, lines, worth, code_of_worth, powers = game
    d, ci, xf, cset, count, pat = level
    nf = len(opponents)
    here_from = seat * (len(mass) // 2)
    below_from = seat * (len(below_mass) // 2)
    own_moves = d % 2 == seat
    for c in range(c0, c1):
        first = c * count
        reached = False
        for p in range(count):
            at = here_from + (first + p) * nf
            code = codes[u(first + p)]
            live = 0
            for f in range(nf):
                if mass[u(at + f)] == 0:
                    continue
                if code == LOSS_NOW:
                    add_compensated(ends, (seat * nf + f) * 2 + (1 if own_moves else 0), mass[u(at + f)])
                elif code > LOSS_NOW and keeps[opponents[f]] == 1 and seat_lost(code, d % 2, seat):
                    add_compensated(ends, (seat * nf + f) * 2 + 1, mass[u(at + f)])  # lost whatever it plays
                    mass[u(at + f)] = 0
                elif code > LOSS_NOW:
                    live = 1
            per[u(4 * count + p)] = live
            reached = reached or live == 1
        if not reached or d == n:
            continue
        mask = set_moves(game, level, below_level, c, ins, below, kids, worths, per, small, tab)
        listed_in_set(listed, first, count, per)
        if own_moves:
            set_odds(odds, 0, kinds[0], n, d, per, count, shares, 0)
        else:
            for f in range(nf):
                set_odds(odds, opponents[f], kinds[opponents[f]], n, d, per, count, shares, 2 * count * f)
        for cell in range(n):
            if mask >> cell & 1:
                continue
            row = cell * count
            for p in range(count):
                if per[u(4 * count + p)] == 0:
                    continue
                at = here_from + (first + p) * nf
                there = below_from + kids[u(row + p)] * nf
                w = worths[u(row + p)]
                if not own_moves:
                    for f in range(nf):
                        q = move_odds(shares, 2 * count * f, kinds[opponents[f]], per, p, w)
                        if q != 0:  # perfect play's other moves: no child's memory touched
                            below_mass[u(there + f)] += mass[u(at + f)] * q
                    continue
                k = per[u(3 * count + p)]
                q = move_odds(shares, 0, kinds[0], per, p, w) if k < 0 else listed_odds[u(k * n + cell)]
                if q == 0:  # a move the policy never plays (a perfect player's other moves)
                    continue
                for f in range(nf):
                    below_mass[u(there + f)] += mass[u(at + f)] * q
                if len(lost) > 0:
                    lost[u(first + p)] += q * (((codes[u(first + p)] - 1) >> 6) - (w >> 6))


def gather_mass(game: Any, level: Any, c0: int, c1: int, mass: Ints, reaches: int, small: Ints, tab: Ints) -> None:
    """Within canonical sets c0..c1, each board's mass (`policy_reach`'s: `reaches` a board in each
    half of `mass`) moved to its class's representative."""
    n, nsym, rank_of, ptab, cellimg, binom, lines, worth, code_of_worth, powers = game
    d, ci, xf, cset, count, pat = level
    half = len(mass) // 2
    for c in range(c0, c1):
        mask, nf = open_set(game, d, cset[c], small, tab)
        if nf == 0:
            continue
        for p in range(count):
            r = least_image(p, pat[u(p)], nf, rank_of, tab)
            if r != p:
                for seat in range(2):
                    for f in range(reaches):
                        to = seat * half + (c * count + r) * reaches + f
                        fro = seat * half + (c * count + p) * reaches + f
                        mass[u(to)] += mass[u(fro)]
                        mass[u(fro)] = 0


def largest_shares(
    total: int, mass: Ints, width: int, at: int, lost: Ints, k: int, where: Ints, shares: Ints, sums: Ints
) -> int:
    """Of boards 0..total of a level, the k whose share (mass[j * width + at] * lost[j]) is
    largest, largest first, to where[] and shares[]; every positive share added to sums[0]
    (`add_compensated`: sums[1] keeps the rounding).
    Returns how many were found (at most k)."""
    found = 0
    for j in range(total):
        share = mass[u(j * width + at)] * lost[u(j)]
        if share <= 0:
            continue
        add_compensated(sums, 0, share)
        if k == 0 or (found == k and share <= shares[k - 1]):
            continue
        i = found if found < k else k - 1
        while i > 0 and shares[i - 1] < share:
            shares[i] = shares[i - 1]
            where[i] = where[i - 1]
            i -= 1
        shares[i] = share
        where[i] = j
        if found < k:
            found += 1
    return found


def gather_classes(
    level: Any,
    c0: int,
    c1: int,
    codes: Ints,
    weights: Ints,
    playouts: Ints,
    paths: Ints,
    slots: Ints,
    values: Ints,
    found: int,
) -> int:
    """Each class representative with a code among canonical sets c0..c1 (`weights`: class sizes,
    0 at non-representatives, laid out from c0), in slot order: its slot to slots[found:], its
    o wins, x wins, draws and paths to values[found * 4:]; returns `found` plus how many."""
    d, ci, xf, cset, count, pat = level
    for c in range(c0, c1):
        for p in range(count):
            j = c * count + p
            if codes[j] == 0 or weights[j - c0 * count] == 0:
                continue
            slots[found] = cset[c] * count + p
            values[found * 4] = playouts[j * 3]
            values[found * 4 + 1] = playouts[j * 3 + 1]
            values[found * 4 + 2] = playouts[j * 3 + 2]
            values[found * 4 + 3] = paths[j]
            found += 1
    return found


def weighted_sum(total: int, values: Ints, weights: Ints) -> int:
    """The sum of values[j] * weights[j]."""
    result = 0
    for j in range(total):
        result += values[j] * weights[j]
    return result


def select_slots(
    total: int, d: int, n: int, kind: int, codes: Ints, weights: Ints, best: Ints, worst: Ints, where: Ints
) -> int:
    """The block slots (of `total`) with a code and weight > 0 (a representative, in a block of
    canonical sets) that are: kind 0 any board, 1 a board in play, 2 a decision position (some
    move of a lower value class than the best; `best` and `worst` read only then). Written to
    where[0:]; returns how many."""
    found = 0
    for j in range(total):
        code = codes[j]
        if code == 0 or weights[j] == 0:
            continue
        if kind >= 1 and (code == LOSS_NOW or d == n):
            continue
        if kind == 2 and (worst[j] >> 6) >= (best[j] >> 6):
            continue
        where[found] = j
        found += 1
    return found


def first_with_code(total: int, codes: Ints, weights: Ints, code: int) -> int:
    """The first block slot holding `code` at a representative, or -1."""
    for j in range(total):
        if codes[j] == code and weights[j] != 0:
            return j
    return -1


def distinct_keys(found: int, nsym: int, keys: Ints, out: Ints) -> int:
    """From `image_keys` rows: each row's distinct keys, written to out[0:]; returns how many."""
    written = 0
    for e in range(found):
        row = e * nsym
        for k in range(nsym):
            seen = False
            for earlier in range(k):
                if keys[row + earlier] == keys[row + k]:
                    seen = True
                    break
            if not seen:
                out[written] = keys[row + k]
                written += 1
    return written


def orbit_summary(found: int, nsym: int, keys: Ints, least: Ints, which: Ints, sizes: Ints) -> None:
    """From `image_keys` rows: each row's least key, the first symmetry giving it, and how many
    distinct keys it has (the board's orbit)."""
    for e in range(found):
        row = e * nsym
        low = keys[row]
        chosen = 0
        distinct = 0
        for k in range(nsym):
            key = keys[row + k]
            if key < low:
                low = key
                chosen = k
            seen = False
            for earlier in range(k):
                if keys[row + earlier] == key:
                    seen = True
                    break
            if not seen:
                distinct += 1
        least[e] = low
        which[e] = chosen
        sizes[e] = distinct


def export_rows(
    game: Any,
    level: Any,
    sets: Ints,
    i0: int,
    where: Ints,
    found: int,
    to_class: bool,
    codes: Ints,
    weights: Ints,
    worths: Ints,
    best_mask: Ints,
    fast_mask: Ints,
    moves: bool,
    key_bytes: Ints,
    images: Ints,
    boards: Ints,
    class_key: Ints,
    orbit: Ints,
    code_out: Ints,
    worths_out: Ints,
    best_out: Ints,
    fast_out: Ints,
) -> None:
    """The export's row e for block slot where[e] (as `board_masks` reads it): its board, or with
    `to_class` (a block of canonical sets, `weights` its class sizes) its class's canonical board
    (the least image, `image_keys`), as o's and x's cells
    (boards[4e], boards[4e + 1]), the canonical board's likewise (boards[4e + 2], boards[4e + 3])
    and its base-3 key, the class's size (`orbit_summary`), its code, and its moves (`slot_moves`'
    worths, unless `worths_out` is empty, best and fastest masks, where `moves`) carried onto the
    row's board. `key_bytes`
    [(k * 4 + b) * 256 + byte]: the base-3 key of o's marks on byte b's cells under symmetry k
    (`key_tables`); `images`: nsym scratch."""
    n, nsym, rank_of, ptab, cellimg, binom, lines, worth, code_of_worth, powers = game
    d, ci, xf, cset, count, pat = level
    for e in range(found):
        j = where[e]
        mask = unrank(set_rank(sets, i0 + j // count), d, n, binom)
        pattern = pat[j % count]
        o_cells = cells_of_pattern(pattern, mask, n)
        x_cells = mask ^ o_cells
        low = 0
        chosen = 0
        distinct = 0
        for k in range(nsym):
            key = 0
            for b in range(4):
                row = (k * 4 + b) * 256
                key += (
                    key_bytes[u(row + (o_cells >> (8 * b) & 255))] + 2 * key_bytes[u(row + (x_cells >> (8 * b) & 255))]
                )
            images[k] = key
            if k == 0 or key < low:
                low = key
                chosen = k
            if to_class:
                continue  # a representative's orbit is its weight
            seen = False
            for earlier in range(k):
                if images[earlier] == key:
                    seen = True
                    break
            if not seen:
                distinct += 1
        t = chosen if to_class else 0
        class_key[e] = low
        orbit[e] = weights[j] if to_class else distinct
        code_out[e] = codes[j]
        board_o = permute(o_cells, t, ptab)
        board_x = permute(x_cells, t, ptab)
        class_o = permute(o_cells, chosen, ptab)
        class_x = permute(x_cells, chosen, ptab)
        best = 0
        fast = 0
        if moves:
            best = permute(best_mask[j], t, ptab)
            fast = permute(fast_mask[j], t, ptab)
        if len(worths_out):
            for cell in range(n):
                to = cellimg[32 * t + cell]
                worths_out[u(e * n + to)] = worths[u(j * n + cell)] if moves else 0
        boards[4 * e] = board_o
        boards[4 * e + 1] = board_x
        boards[4 * e + 2] = class_o
        boards[4 * e + 3] = class_x
        best_out[e] = best
        fast_out[e] = fast


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
