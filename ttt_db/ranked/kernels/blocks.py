"""A block of a level's slots: its sets expanded, classes and orbits, boards as masks, slots chosen
by code, and the rows the export writes."""

from __future__ import annotations

from typing import Any

from ttt_db.ranked.kernels.sets import (
    AT_CELLS,
    LOSS_NOW,
    Ints,
    cells_of_pattern,
    image_tables,
    least_image,
    moved,
    open_set,
    orbit_weight,
    permute,
    set_cells,
    set_rank,
    u,
    unrank,
)


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
        set_cells(mask, n, small, AT_CELLS)
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


def image_keys(game: Any, level: Any, sets: Ints, i0: int, where: Ints, found: int, keys: Ints) -> None:
    """keys[e * nsym + k]: the base-3 key (`Game.key`: powers[cell] = 3^(n - 1 - cell), o 1, x 2)
    of the image under symmetry k of block slot where[e] (as `board_masks` reads it)."""
    n, nsym, rank_of, ptab, cellimg, binom, lines, worth, code_of_worth, powers = game
    d, ci, xf, cset, count, pat = level
    held = -1
    mask = 0
    for e in range(found):
        j = where[e]
        if j // count != held:  # a block's rows come set by set: each set unranked once
            held = j // count
            mask = unrank(set_rank(sets, i0 + held), d, n, binom)
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
        set_cells(mask, n, small, AT_CELLS)
        image_tables(permute(mask, k, ptab), k, d, n, cellimg, small, tab, 0)
        image, nf = open_set(game, d, canonical_set, small, tab)
        base = (s - s0) * count
        for p in range(count):
            q = rank_of[moved(pat[p], tab, 0)]
            if nf:
                q = least_image(q, pat[q], nf, rank_of, tab)
            out[base + p] = canonical_set * count + q


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
    held = -1
    mask = 0
    for e in range(found):
        j = where[e]
        if j // count != held:  # a block's rows come set by set: each set unranked once
            held = j // count
            mask = unrank(set_rank(sets, i0 + held), d, n, binom)
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


def board_letters(occupied: Ints, o_cells: Ints, found: int, cells: int, out: Ints) -> None:
    """Board r (its occupied and o's cells) as `cells` letters from out[r * cells]: `.` where empty,
    `o` or `x` where marked (ASCII)."""
    for r in range(found):
        occupied_r = occupied[r]
        o_r = o_cells[r]
        base = r * cells
        for cell in range(cells):
            if not occupied_r >> cell & 1:
                out[u(base + cell)] = 46
            elif o_r >> cell & 1:
                out[u(base + cell)] = 111
            else:
                out[u(base + cell)] = 120


def mask_cells(masks: Ints, found: int, cells: int, ends: Ints, out: Ints) -> None:
    """The cells of mask r, in order, from out[ends[r - 1]] (0 for the first) to out[ends[r]]."""
    total = 0
    for r in range(found):
        mask = masks[r]
        for cell in range(cells):
            if mask >> cell & 1:
                out[u(total)] = cell
                total += 1
        ends[r] = total
