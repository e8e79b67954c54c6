"""A policy's measures over the core: the best response's outcomes and the policy's reach, in
float64 summed with compensation."""

from __future__ import annotations

from typing import Any

from ttt_db.ranked.kernels.moves import chosen_move, move_kinds, set_moves
from ttt_db.ranked.kernels.sets import LOSS_NOW, Ints, least_image, open_set, u


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
    dense: bool,
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
    tie; scores within `tie` are tied; `dense` as `policy_reach` reads it), from every board of
    canonical sets c0..c1 of level d, from those of level d + 1 (`below_out`, laid out as `out`):
    at out[(j * len(seats) + i) * 2], board j's probability that seats[i] wins, then that it loses
    (a draw is the rest); at a board the seat has lost (`seat_lost`) the best response wins, its
    children not read. `kids`, `worths` and `per` (5 * count) are `set_moves`' scratch, `shares`
    (2 * count) `set_odds`'."""
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
                        if dense or q != 0:  # sparse: a move the policy never plays adds nothing
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
    dense: bool,
    kids: Ints,
    worths: Ints,
    per: Ints,
    shares: Ints,
    small: Ints,
    tab: Ints,
) -> None:
    """Play forward from canonical sets c0..c1 of level d, policy 0 (its odds by kind, or its odds
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
    gives up there: the board's value (1, 0, -1 for the mover) less its moves' expected value.
    `dense`: every move's share is added to its child, a 0 too (in float64, cheaper than telling
    the zeros apart, which no branch predictor can); else a move never played (a perfect player's
    other moves) adds nothing (in exact fractions, each addition costs). The two seats touch
    apart entries: they may run at once. `kids`, `worths` and `per` (5 * count:
    whether a board is carried on at per[4 * count + p]) are `set_moves`' scratch; `shares`
    (2 * count * (nf + 1)) holds what each board gives a move of each class against each opponent
    (`given_by_class`), then the odds `set_odds` gave policy 0."""
    n, nsym, rank_of, ptab, cellimg, binom, lines, worth, code_of_worth, powers = game
    d, ci, xf, cset, count, pat = level
    nf = len(opponents)
    here_from = seat * (len(mass) // 2)
    below_from = seat * (len(below_mass) // 2)
    own_moves = d % 2 == seat
    own_odds = 2 * count * nf
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
            set_odds(odds, 0, kinds[0], n, d, per, count, shares, own_odds)
        for f in range(nf):
            mover = 0 if own_moves else opponents[f]
            if not own_moves:
                set_odds(odds, mover, kinds[mover], n, d, per, count, shares, 2 * count * f)
            given_by_class(mass, here_from + first * nf + f, nf, count, shares, 2 * count * f, own_moves, own_odds)
        for cell in range(n):
            if mask >> cell & 1:
                continue
            row = cell * count
            for p in range(count):
                if per[u(4 * count + p)] == 0:
                    continue
                there = below_from + kids[u(row + p)] * nf
                w = worths[u(row + p)]
                best, fastest = move_kinds(w, per[u(p)])
                if own_moves and per[u(3 * count + p)] >= 0:  # a listed board: its own odds for each cell
                    at = here_from + (first + p) * nf
                    q = listed_odds[u(per[u(3 * count + p)] * n + cell)]
                    if q != 0:
                        for f in range(nf):
                            below_mass[u(there + f)] += mass[u(at + f)] * q
                        if len(lost) > 0:
                            lost[u(first + p)] += q * (((codes[u(first + p)] - 1) >> 6) - (w >> 6))
                    continue
                for f in range(nf):
                    mover = 0 if own_moves else opponents[f]
                    g = shares[u(2 * (f * count + p) + (best if kinds[mover] == 1 else fastest))]
                    if dense or g != 0:  # sparse: a move never played (a perfect player's other moves) adds nothing
                        below_mass[u(there + f)] += g
                if own_moves and len(lost) > 0:
                    q = shares[u(own_odds + 2 * p + (best if kinds[0] == 1 else fastest))]
                    lost[u(first + p)] += q * (((codes[u(first + p)] - 1) >> 6) - (w >> 6))


def given_by_class(
    mass: Ints, at: int, nf: int, count: int, shares: Ints, to: int, own_moves: bool, own_odds: int
) -> None:
    """What each board p of a set gives a move not of its mover's kind and one of it against one
    opponent: its mass (mass[at + p * nf]) times the odds `set_odds` put at shares[to:] (the
    opponent's, where it moves) or at shares[own_odds:] (policy 0's, where it moves), written at
    shares[to + 2 * p] and the entry after."""
    odds_at = own_odds if own_moves else to
    for p in range(count):
        m = mass[u(at + p * nf)]
        shares[u(to + 2 * p)] = m * shares[u(odds_at + 2 * p)]
        shares[u(to + 2 * p + 1)] = m * shares[u(odds_at + 2 * p + 1)]


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
