"""A batch of boards ranked with their children and grandchildren: each one's slot in its level."""

from __future__ import annotations

from typing import Any

from ttt_db.ranked.kernels.sets import STRIDE, Ints, cell_count, mask_rank, pattern_of_cells, permute, u


def image_slot(game: Any, rank_bytes: Ints, images: Ints, d: int, c: int, c_is_o: bool, r: int, r_is_o: bool) -> int:
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
    return int(mask_rank(least, n, rank_bytes) * binom[u(d * STRIDE + (d + 1) // 2)] + rank_of[u(pattern)])


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
    rank_bytes: Ints,
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
        own[u(i)] = image_slot(game, rank_bytes, images, d, -1, False, -1, False)
        for c in range(n):
            at = i * n + c
            taken = finished or occ >> c & 1 == 1
            child[u(at)] = -1
            ended[u(at)] = 0
            end = 0
            if not taken:
                child[u(at)] = image_slot(game, rank_bytes, images, d + 1, c, o_moves, -1, False)
                end = 1 if has_line(mover | 1 << c, lines) else 2 if d + 1 == n else 0
                ended[u(at)] = end
            for r in range(n):
                grand[u(at * n + r)] = -1
                if not taken and end == 0 and r != c and occ >> r & 1 == 0:
                    grand[u(at * n + r)] = image_slot(game, rank_bytes, images, d + 2, c, o_moves, r, not o_moves)
