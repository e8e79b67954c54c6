"""A board's moves in bulk: each move's worth and slot, and the one rule of which moves are best
and which fastest (`chosen_move`)."""

from __future__ import annotations

from typing import Any

from ttt_db.ranked.kernels.sets import (
    AT_CELLS,
    LOSS_NOW,
    Ints,
    child_pattern,
    open_child,
    set_cells,
    set_rank,
    u,
    unrank,
)


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
    other than 0 or LOSS_NOW, a weight (weights[j]) other than 0; no move elsewhere (every child is
    read, then those of boards not in play are cleared: a test per board and move costs more)."""
    n, nsym, rank_of, ptab, cellimg, binom, lines, worth, code_of_worth, powers = game
    d, ci, xf, cset, count, pat = level
    for i in range(i0, i1):
        mask = unrank(set_rank(sets, i), d, n, binom)
        set_cells(mask, n, small, AT_CELLS)
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
                w = worth[below[u(run + child_pattern(p, pat[u(p)], m, k, add, count, ins, rank_of, tab))]]
                worths[u((base + p) * n + cell)] = w
                best[u(base + p)] = max(best[u(base + p)], w)
                worst[u(base + p)] = min(worst[u(base + p)], w)
        for p in range(count):
            if codes[u(base + p)] <= LOSS_NOW or weights[u(base + p)] == 0:
                best[u(base + p)] = 0
                worst[u(base + p)] = 255
                for cell in range(n):
                    worths[u((base + p) * n + cell)] = 0
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


def chosen_move(kind: int, w: int, top: int) -> bool:
    """Whether a move of worth w is among the moves of `kind` at a board whose best worth is top:
    kind 1 those keeping the best value class, 2 those also fastest (every drawing move when the
    best is a draw): the one rule of best and fastest moves in bulk. Written without a branch: whether
    a move is of a kind is not predictable, and a mispredicted branch costs more than the sums."""
    return (w >> 6 == top >> 6) & ((kind == 1) | (w == top) | (top >> 6 == 1))


def move_kinds(w: int, top: int) -> tuple[int, int]:
    """`chosen_move` of kind 1, then of kind 2, as 1 or 0, computed together for the loops that
    need both (held equal to `chosen_move` on every pair of worths by a test)."""
    best = int(w >> 6 == top >> 6)
    return best, best & int((w == top) | (top >> 6 == 1))


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
    set_cells(mask, n, small, AT_CELLS)
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
            best, fastest = move_kinds(w, per[u(p)])
            per[u(count + p)] += int(w != 0) & best
            per[u(2 * count + p)] += int(w != 0) & fastest
    return mask
