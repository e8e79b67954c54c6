"""The ranked core in arrays: every level of a game solved by dense slots (`ttt_db.game.slots`),
deepest first, holding two levels in memory, with no keys, no edges and no forward pass.

A slot is reachable when the side that did not move last has no line and the side that did has
none, or only lines through one common mark (its last move made them): a local test, so no pass
from the empty board is needed to mark the reachable slots. A level's slots are taken a few
thousand occupied-sets at a time (`Block`): all slots of one occupied set share it, so a child's
slot is `rank(occupied + cell) * C(d + 1, o') + INSERT[m][pattern]`, where m is how many occupied
cells lie below the new one and INSERT the rank of the pattern with a bit put in at m.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from math import comb

import numpy as np
import numpy.typing as npt

from ttt_db.game.definition import Game
from ttt_db.game.slots import level_slots, o_count

Codes = npt.NDArray[np.uint8]
Ints = npt.NDArray[np.int64]
LevelProgress = Callable[[int, int], None]
"""Called as progress(slots done, slots of the level) while a level is solved."""

_BLOCK_SLOTS = 1 << 19  # slots per block of work: its temporaries stay in a few MB
LOSS_NOW = 1  # the code of a finished board whose last mover won: a loss in 0 for the side to move
DRAW_NOW = 1 + 64  # a full board without a line: a draw in 0


def _no_progress(done: int, total: int) -> None:
    return None


def _move_key_tables() -> tuple[Codes, Codes]:
    """KEY[child code]: the move's worth to the mover, larger is better (a win sooner, a draw or a
    loss later); CODE[key]: the parent's code when that move is its best."""
    key = np.zeros(256, np.uint8)
    code = np.zeros(256, np.uint8)
    for child in range(1, 193):
        value = -((child - 1) // 64 - 1)
        remoteness = (child - 1) % 64 + 1
        if remoteness > 63:
            continue
        worth = (value + 1) * 64 + (63 - remoteness if value == 1 else remoteness)
        key[child] = worth
        code[worth] = 1 + (value + 1) * 64 + remoteness
    return key, code


KEY, CODE = _move_key_tables()


class Tables:
    """The game's lookup tables over every mask of its cells (2^cells entries each)."""

    def __init__(self, game: Game) -> None:
        n = game.cells
        self.game = game
        self.cells = n
        masks = np.arange(1 << n, dtype=np.int64)
        counts = np.bitwise_count(masks)
        order = np.argsort(counts, kind="stable")
        starts = np.zeros(n + 2, np.int64)
        np.cumsum(np.bincount(counts, minlength=n + 1), out=starts[1:])
        self.rank = np.empty(1 << n, np.int64)
        self.rank[order] = np.arange(1 << n) - starts[counts[order]]
        self.combos = [order[starts[p] : starts[p + 1]] for p in range(n + 1)]  # masks of p bits, ascending
        self.lines = _line_status(game, masks)
        self.low_bits = n // 2
        self.high_bits = n - self.low_bits
        self.deposit_low = _deposit_table(self.low_bits)
        self.deposit_high = _deposit_table(self.high_bits)
        self.extract_low = _extract_table(self.low_bits)
        self.extract_high = _extract_table(self.high_bits)
        self.permutations = [_permutation_tables(inverse, self.low_bits, n) for inverse in game.inverses[1:]]

    def deposit(self, occupied: Ints, patterns: Ints) -> Ints:
        """o's cells from patterns (rows: occupied sets, columns: patterns)."""
        low_mask = (1 << self.low_bits) - 1
        low = occupied & low_mask
        below = np.bitwise_count(low).astype(np.int64)
        low_index = (low << self.low_bits)[:, None] | (patterns[None, :] & ((1 << below) - 1)[:, None])
        high_index = ((occupied >> self.low_bits) << self.high_bits)[:, None] | (patterns[None, :] >> below[:, None])
        result: Ints = self.deposit_low[low_index] | (self.deposit_high[high_index] << self.low_bits)
        return result

    def extract(self, occupied: Ints, o_cells: Ints) -> Ints:
        """Patterns of o's cells (rows: occupied sets, columns: o's cell masks)."""
        low_mask = (1 << self.low_bits) - 1
        low = occupied & low_mask
        below = np.bitwise_count(low).astype(np.int64)
        low_index = (low << self.low_bits)[:, None] | (o_cells & low_mask)
        high_index = ((occupied >> self.low_bits) << self.high_bits)[:, None] | (o_cells >> self.low_bits)
        result: Ints = self.extract_low[low_index] | (self.extract_high[high_index] << below[:, None])
        return result

    def permute(self, masks: Ints, transform: int) -> Ints:
        """Masks under symmetry `transform` (1 and up: the identity has no table)."""
        low, high = self.permutations[transform - 1]
        result: Ints = low[masks & ((1 << self.low_bits) - 1)] | high[masks >> self.low_bits]
        return result


def _line_status(game: Game, masks: Ints) -> npt.NDArray[np.uint8]:
    """Per mask of one side's cells: 0 no line, 1 lines through a common cell, 2 lines with none."""
    common = np.full(len(masks), -1, np.int64)
    any_line = np.zeros(len(masks), bool)
    for line in game.lines:
        bits = sum(1 << cell for cell in line)
        holds = (masks & bits) == bits
        any_line |= holds
        common = np.where(holds, common & bits, common)
    status: npt.NDArray[np.uint8] = np.where(any_line, np.where(common != 0, 1, 2), 0).astype(np.uint8)
    return status


def _deposit_table(bits: int) -> Ints:
    """[mask * 2^bits + pattern]: the pattern's bits put on the mask's set bits, in order."""
    size = 1 << bits
    table = np.zeros((size, size), np.int64)
    patterns = np.arange(size, dtype=np.int64)
    for mask in range(size):
        cells = [cell for cell in range(bits) if mask >> cell & 1]
        for j, cell in enumerate(cells):
            table[mask] |= ((patterns >> j) & 1) << cell
    flat: Ints = table.ravel()
    return flat


def _extract_table(bits: int) -> Ints:
    """[mask * 2^bits + cells]: the cells' bits at the mask's set bits, compacted."""
    size = 1 << bits
    table = np.zeros((size, size), np.int64)
    cells_of = np.arange(size, dtype=np.int64)
    for mask in range(size):
        for j, cell in enumerate(cell for cell in range(bits) if mask >> cell & 1):
            table[mask] |= ((cells_of >> cell) & 1) << j
    flat: Ints = table.ravel()
    return flat


def _permutation_tables(inverse: tuple[int, ...], low_bits: int, cells: int) -> tuple[Ints, Ints]:
    """Tables moving the low and the high cells of a mask to their images' cells."""

    def table(first: int, count: int) -> Ints:
        values = np.arange(1 << count, dtype=np.int64)
        result = np.zeros(1 << count, np.int64)
        for offset in range(count):
            result |= ((values >> offset) & 1) << inverse[first + offset]
        return result

    return table(0, low_bits), table(low_bits, cells - low_bits)


@dataclass(frozen=True, slots=True)
class SolvedLevel:
    """One level: every reachable slot's code (`codes`), the codes the database keeps (only each
    class's representative: `stored`), and its counts."""

    depth: int
    codes: Codes
    stored: Codes
    positions: int
    canonical: int


def solve_level(tables: Tables, depth: int, below: Codes | None, progress: LevelProgress = _no_progress) -> SolvedLevel:
    """Level `depth` from the codes of every reachable slot one level deeper (None at a full board)."""
    n = tables.cells
    o = o_count(depth)
    per_set = comb(depth, o)
    patterns = tables.combos[o][:per_set]
    occupied_sets = tables.combos[depth]
    codes = np.zeros(level_slots(n, depth), np.uint8)
    representative = np.zeros(len(codes), bool)
    insert = _insert_table(tables, depth) if depth < n else None
    child_per_set = comb(depth + 1, o_count(depth + 1)) if depth < n else 0
    sets_per_block = max(1, _BLOCK_SLOTS // per_set)
    for first in range(0, len(occupied_sets), sets_per_block):
        last = min(first + sets_per_block, len(occupied_sets))
        block = slice(first * per_set, last * per_set)
        occupied = occupied_sets[first:last]
        o_cells = tables.deposit(occupied, patterns)
        block_codes = _block_codes(tables, depth, occupied, o_cells, below, insert, child_per_set)
        codes[block] = block_codes.ravel()
        representative[block] = _representatives(tables, first, occupied, o_cells).ravel()
        progress(last * per_set, len(codes))
    stored = np.where(representative, codes, 0).astype(np.uint8)
    return SolvedLevel(depth, codes, stored, int(np.count_nonzero(codes)), int(np.count_nonzero(stored)))


def _insert_table(tables: Tables, depth: int) -> Ints:
    """[m, pattern index]: the rank of the pattern with the mover's bit put in at position m."""
    o = o_count(depth)
    patterns = tables.combos[o][: comb(depth, o)]
    bit = 1 if depth % 2 == 0 else 0  # o moves on even depths
    rows = []
    for m in range(depth + 1):
        low = patterns & ((1 << m) - 1)
        inserted = low | (bit << m) | ((patterns >> m) << (m + 1))
        rows.append(tables.rank[inserted])
    return np.stack(rows)


def _block_codes(
    tables: Tables,
    depth: int,
    occupied: Ints,
    o_cells: Ints,
    below: Codes | None,
    insert: Ints | None,
    child_per_set: int,
) -> Codes:
    n = tables.cells
    x_cells = occupied[:, None] ^ o_cells
    o_lines, x_lines = tables.lines[o_cells], tables.lines[x_cells]
    if depth == 0:
        last_mover, other = np.zeros_like(o_lines), np.zeros_like(o_lines)
    elif depth % 2 == 1:
        last_mover, other = o_lines, x_lines
    else:
        last_mover, other = x_lines, o_lines
    reachable = (other == 0) & (last_mover != 2)
    won = last_mover == 1
    if depth == n or below is None or insert is None:
        finished = np.where(won, LOSS_NOW, DRAW_NOW).astype(np.uint8)
        return np.where(reachable, finished, 0).astype(np.uint8)
    best = np.zeros(o_cells.shape, np.uint8)
    for cell in range(n):
        free = np.flatnonzero(((occupied >> cell) & 1) == 0)
        if len(free) == 0:
            continue
        sets = occupied[free]
        m = np.bitwise_count(sets & ((1 << cell) - 1)).astype(np.int64)
        base = tables.rank[sets | (1 << cell)] * child_per_set
        worth = KEY[below[insert[m] + base[:, None]]]
        if len(free) == len(occupied):
            np.maximum(best, worth, out=best)
        else:
            best[free] = np.maximum(best[free], worth)
    playing = CODE[best]
    return np.where(reachable, np.where(won, LOSS_NOW, playing), 0).astype(np.uint8)


def _representatives(tables: Tables, first: int, occupied: Ints, o_cells: Ints) -> npt.NDArray[np.bool_]:
    """Whether each slot is the smallest of its images' slots. An occupied set with a smaller
    image makes every slot of it a non-representative; only occupied sets that a symmetry maps
    onto themselves need o's cells compared."""
    ranks = np.arange(first, first + len(occupied))
    keep = np.ones(o_cells.shape, bool)
    pattern_ranks: Ints | None = None
    for transform in range(1, len(tables.game.transforms)):
        image_ranks = tables.rank[tables.permute(occupied, transform)]
        keep[image_ranks < ranks] = False
        fixed = np.flatnonzero(image_ranks == ranks)
        if len(fixed) == 0:
            continue
        if pattern_ranks is None:
            pattern_ranks = np.arange(o_cells.shape[1])
        image = tables.permute(o_cells[fixed], transform)
        image_patterns = tables.rank[tables.extract(occupied[fixed], image)]
        keep[fixed] &= image_patterns >= pattern_ranks[None, :]
    return keep


def solve_core(
    game: Game,
    progress: Callable[[int, int, int], None] | None = None,
    start: tuple[int, Codes] | None = None,
) -> Iterator[SolvedLevel]:
    """Every level, deepest first, with progress(depth, slots done, slots); `start`, the depth and
    reachable codes of a level already solved, resumes just above it."""
    tables = Tables(game)
    below = start[1] if start is not None else None
    first = start[0] - 1 if start is not None else game.cells
    for depth in range(first, -1, -1):

        def level_progress(done: int, total: int, depth: int = depth) -> None:
            if progress is not None:
                progress(depth, done, total)

        level = solve_level(tables, depth, below, level_progress)
        yield level
        below = level.codes


def expand_level(tables: Tables, depth: int, stored: Codes) -> Codes:
    """Every reachable slot's code from the stored level, which keeps only each class's
    representative: a slot takes the code of its smallest image."""
    o = o_count(depth)
    per_set = comb(depth, o)
    patterns = tables.combos[o][:per_set]
    occupied_sets = tables.combos[depth]
    codes = np.zeros(len(stored), np.uint8)
    sets_per_block = max(1, _BLOCK_SLOTS // per_set)
    for first in range(0, len(occupied_sets), sets_per_block):
        last = min(first + sets_per_block, len(occupied_sets))
        occupied = occupied_sets[first:last]
        o_cells = tables.deposit(occupied, patterns)
        smallest = np.arange(first * per_set, last * per_set, dtype=np.int64).reshape(o_cells.shape)
        for transform in range(1, len(tables.game.transforms)):
            image_sets = tables.permute(occupied, transform)
            image = (
                tables.rank[image_sets][:, None] * per_set
                + tables.rank[tables.extract(image_sets, tables.permute(o_cells, transform))]
            )
            np.minimum(smallest, image, out=smallest)
        codes[first * per_set : last * per_set] = stored[smallest.ravel()]
    return codes
