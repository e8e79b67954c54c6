"""A level's codes in the stored numbering (a class's code at its representative) and back, and a
stored level held to the codes its children give."""

from __future__ import annotations

from typing import Any

from ttt_db.ranked.kernels.sets import Ints, least_image, open_set, u


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
