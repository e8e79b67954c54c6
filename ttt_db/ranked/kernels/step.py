"""The level step: a range of a level's canonical sets solved from the level below (each board's
code by the retrograde rule), counted and tallied."""

from __future__ import annotations

from typing import Any

from ttt_db.ranked.kernels.sets import (
    AT_CELLS,
    AT_LINES,
    DRAW_NOW,
    LOSS_NOW,
    Ints,
    open_child,
    open_set,
    orbit_weight,
    u,
)

COUNTS = 12
"""counts: positions, classes, in play (positions, classes), decision (positions, classes), values
loss/draw/win (positions), values loss/draw/win (classes)."""
CODES = 256
"""A tally (`solve_sets`'s, where asked): positions by code at [code], classes by code at [CODES +
code], positions in play by how many of their moves keep their value class at [2 * CODES + k]."""


def tally_size(n: int) -> int:
    """The length of a tally of an n-cell game."""
    return 2 * CODES + n + 1


def line_patterns(mask: int, d: int, lines: Ints, small: Ints) -> int:
    """The lines inside `mask` as patterns over its cells (small[AT_LINES:]); returns how many."""
    count = 0
    for li in range(len(lines)):
        line = lines[li]
        if mask & line == line:
            lp = 0
            for i in range(d):
                if line >> small[AT_CELLS + i] & 1:
                    lp |= 1 << i
            small[AT_LINES + count] = lp
            count += 1
    return count


def finished_code(pattern: int, d: int, n: int, o_moves: bool, nl: int, small: Ints) -> int:
    """The code the rules alone give a board of a set with `nl` lines inside (small[AT_LINES:]):
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
        line = small[AT_LINES + li]
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
