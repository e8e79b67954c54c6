"""Random play over the core: each class's odds of each end (`playout`) and its paths, gathered by
class."""

from __future__ import annotations

from typing import Any

from ttt_db.ranked.kernels.sets import (
    AT_CELLS,
    AT_POS,
    AT_SIGMA,
    LOSS_NOW,
    Ints,
    child_pattern,
    moved,
    open_child,
    pattern_tables,
    permute,
    set_cells,
    set_positions,
    unrank,
)


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
        set_cells(mask, n, small, AT_CELLS)
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
        set_cells(mask, n, small, AT_CELLS)
        for i in range(d):
            cell = small[AT_CELLS + i]
            parent = mask ^ (1 << cell)
            r0 = rank_of[parent]
            k = xf0[r0]
            run = ci0[r0] * count0
            # parent position j (of d - 1) is position j + (j >= i) here; then moved by k
            set_positions(permute(parent, k, ptab), n, small, AT_POS)
            for j in range(d - 1):
                own = small[AT_CELLS + (j + 1 if j >= i else j)]
                small[AT_SIGMA + j] = small[AT_POS + cellimg[32 * k + own]]
            pattern_tables(small, AT_SIGMA, d - 1, tab, 0)
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
