"""The weak check's walk: the boards a policy can reach against every reply, marked level by level."""

from __future__ import annotations

from typing import Any

from ttt_db.ranked.kernels.moves import chosen_move, set_moves
from ttt_db.ranked.kernels.sets import DRAW_NOW, LOSS_NOW, Ints, least_image, open_set, orbit_weight, u


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
