"""The ranked core in arrays: the array form of `ttt_db.game.slots` (ranks and boards of whole
blocks of slots at once) and of the core's codes (`ttt_db.store.codes`: every move's worth from
its child's code), in numpy, imported only by the work that touches many boards: the builder,
verify, the checks and the export over the core. tests/test_core.py holds it to the scalar form.

A level's slots are taken a few thousand occupied sets at a time (a `Block`); all slots of one
occupied set share it, so a child's slot is `rank(occupied + cell) * C(d + 1, o') +
INSERT[m][pattern]`, where m counts the occupied cells below the new one and INSERT is the rank of
the pattern with the mover's bit put in at m. A line test is one lookup in a table over every
mask of the board's cells.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from math import comb
from typing import Final

import numpy as np
import numpy.typing as npt

from ttt_db.errors import DatabaseDamagedError
from ttt_db.game.definition import Game, level_slots, o_count
from ttt_db.game.rules import opposite_value, value_rank
from ttt_db.store.codes import DRAW_NOW, LOSS_NOW, REMOTENESS_LIMIT, code_of, code_text, value_of_code

Codes = npt.NDArray[np.uint8]
Ints = npt.NDArray[np.int64]
Flags = npt.NDArray[np.bool_]

BLOCK_SLOTS: Final = 1 << 19
"""Slots per block of work: its temporaries stay within a few tens of MB."""


def _worth_tables() -> tuple[Codes, Codes]:
    """WORTH[child code]: the move's worth to the mover, larger is better (a win sooner, a draw
    or a loss later; its value rank is worth >> 6, `move_of_worth` reads it); CODE[worth]: the
    parent's code (`ttt_db.store.codes`) when that move is its best."""
    worth = np.zeros(256, np.uint8)
    code = np.zeros(256, np.uint8)
    for child in range(256):
        decoded = value_of_code(child)
        if decoded is None or decoded[1] + 1 >= REMOTENESS_LIMIT:
            continue
        value, remoteness = opposite_value(decoded[0]), decoded[1] + 1
        rank = value_rank(value)
        key = rank * REMOTENESS_LIMIT + (REMOTENESS_LIMIT - 1 - remoteness if value == "win" else remoteness)
        worth[child] = key
        code[key] = code_of(value, remoteness)
    return worth, code


WORTH, CODE = _worth_tables()


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
        self.deposit_low, self.extract_low = _bit_tables(self.low_bits)
        self.deposit_high, self.extract_high = _bit_tables(self.high_bits)
        self.permutations = [_permutation_tables(inverse, self.low_bits, n) for inverse in game.inverses[1:]]

    @cached_property
    def key_weights(self) -> Ints:
        """[mask]: the sum of 3^(cells - 1 - i) over its cells: a board's base-3 key
        (`Game.key`) is key_weights[o's cells] + 2 * key_weights[x's cells]."""
        weights = np.zeros(1 << self.cells, np.int64)
        masks = np.arange(1 << self.cells, dtype=np.int64)
        for cell in range(self.cells):
            weights += ((masks >> cell) & 1) * 3 ** (self.cells - 1 - cell)
        return weights

    def keys(self, occupied: Ints, o_cells: Ints) -> Ints:
        """The base-3 keys of boards (rows: occupied sets, columns: o's cells)."""
        result: Ints = self.key_weights[o_cells] + 2 * self.key_weights[occupied[:, None] ^ o_cells]
        return result

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

    def insert(self, depth: int) -> Ints:
        """[m, pattern index]: the rank of the pattern with the mover's bit put in at position m."""
        o = o_count(depth)
        patterns = self.combos[o][: comb(depth, o)]
        bit = 1 if depth % 2 == 0 else 0  # o moves on even depths
        rows = []
        for m in range(depth + 1):
            low = patterns & ((1 << m) - 1)
            inserted = low | (bit << m) | ((patterns >> m) << (m + 1))
            rows.append(self.rank[inserted])
        return np.stack(rows)

    def blocks(self, depth: int, start: int = 0, stop: int | None = None) -> Iterator[Block]:
        """A level's slots in blocks of whole occupied sets, in slot order: blocks `start` to
        `stop` (exclusive; all by default), each made without making the ones before it."""
        o = o_count(depth)
        per_set, sets_per_block = block_shape(depth)
        patterns = self.combos[o][:per_set]
        occupied_sets = self.combos[depth]
        for first in range(0, len(occupied_sets), sets_per_block)[start:stop]:
            last = min(first + sets_per_block, len(occupied_sets))
            occupied = occupied_sets[first:last]
            yield Block(
                depth, first, slice(first * per_set, last * per_set), occupied, self.deposit(occupied, patterns)
            )


def block_shape(depth: int) -> tuple[int, int]:
    """(slots per occupied set, occupied sets per block) of level `depth`'s blocks."""
    per_set = comb(depth, o_count(depth))
    return per_set, max(1, BLOCK_SLOTS // per_set)


def block_count(cells: int, depth: int) -> int:
    """How many blocks `Tables.blocks` cuts level `depth` of a board of `cells` cells into."""
    return -(-comb(cells, depth) // block_shape(depth)[1])


def _line_status(game: Game, masks: Ints) -> Codes:
    """Per mask of one side's cells: 0 no line, 1 lines through a common cell, 2 lines with none."""
    common = np.full(len(masks), -1, np.int64)
    any_line = np.zeros(len(masks), bool)
    for line in game.lines:
        bits = sum(1 << cell for cell in line)
        holds = (masks & bits) == bits
        any_line |= holds
        common = np.where(holds, common & bits, common)
    status: Codes = np.where(any_line, np.where(common != 0, 1, 2), 0).astype(np.uint8)
    return status


def _bit_tables(bits: int) -> tuple[Ints, Ints]:
    """Two tables indexed by [mask * 2^bits + value]: `deposit` puts the value's bits on the mask's
    set bits, in order; `extract` compacts the value's bits at the mask's set bits (its inverse)."""
    size = 1 << bits
    deposit = np.zeros((size, size), np.int64)
    extract = np.zeros((size, size), np.int64)
    values = np.arange(size, dtype=np.int64)
    for mask in range(size):
        for j, cell in enumerate(cell for cell in range(bits) if mask >> cell & 1):
            deposit[mask] |= ((values >> j) & 1) << cell
            extract[mask] |= ((values >> cell) & 1) << j
    return deposit.ravel(), extract.ravel()


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
class Block:
    """Whole occupied sets of one level: `occupied` (rows) and o's cells of every slot (rows x
    patterns); `slots` is the block's range of the level."""

    depth: int
    first: int  # the rank of its first occupied set
    slots: slice
    occupied: Ints
    o_cells: Ints


@dataclass(frozen=True, slots=True)
class BlockState:
    """Each slot of a block by the rules alone: reachable, and finished (a line, or a full board)."""

    reachable: Flags
    won: Flags  # the side that moved last has a line: a loss in 0 for the side to move
    finished: Flags


def block_state(tables: Tables, block: Block) -> BlockState:
    """A slot is reachable when the side that did not move last has no line and the side that did
    has none, or only lines through one common mark (its last move made them): a local test, so no
    pass from the empty board is needed."""
    depth = block.depth
    o_lines = tables.lines[block.o_cells]
    x_lines = tables.lines[block.occupied[:, None] ^ block.o_cells]
    if depth == 0:
        last_mover, other = np.zeros_like(o_lines), np.zeros_like(o_lines)
    elif depth % 2 == 1:
        last_mover, other = o_lines, x_lines
    else:
        last_mover, other = x_lines, o_lines
    reachable = (other == 0) & (last_mover != 2)
    won = last_mover == 1
    finished = won | (depth == tables.cells)
    return BlockState(reachable, won, finished)


@dataclass(frozen=True, slots=True)
class BlockMoves:
    """Every move of every slot of a block, from the codes of the children: the best and the
    worst worth (`WORTH`); with masks, the moves that keep the best value (`best`, a mask of
    cells), those that also win fastest or lose slowest (`fastest`), and each move's worth."""

    best_worth: Codes
    worst_worth: Codes
    best: Ints | None = None
    fastest: Ints | None = None
    by_cell: Codes | None = None  # each move's worth (slots x cells, 0 at a taken cell)

    @property
    def deciding(self) -> Flags:
        """Where some move loses value (a decision position, where the slot is in play)."""
        deciding: Flags = (self.worst_worth >> 6) < (self.best_worth >> 6)
        return deciding


def child_slots(tables: Tables, block: Block, insert: Ints) -> Iterator[tuple[int, Ints | None, Ints]]:
    """For each cell: the rows (occupied sets) of the block where it is empty (None: all of
    them) and the slot in the next level of every move there (those rows x patterns)."""
    depth = block.depth
    child_per_set = comb(depth + 1, o_count(depth + 1))
    occupied = block.occupied
    for cell in range(tables.cells):
        free = np.flatnonzero(((occupied >> cell) & 1) == 0)
        if len(free) == 0:
            continue
        sets = occupied[free]
        m = np.bitwise_count(sets & ((1 << cell) - 1)).astype(np.int64)
        base = tables.rank[sets | (1 << cell)] * child_per_set
        yield cell, None if len(free) == len(occupied) else free, insert[m] + base[:, None]


def block_moves(tables: Tables, block: Block, below: Codes, insert: Ints, *, masks: bool = False) -> BlockMoves:
    """The moves of a block's slots from `below`, every reachable slot's code one level deeper
    (`insert`: `Tables.insert(block.depth)`). Meaningful at the slots in play. `masks`: the best
    and fastest moves' masks and each move's worth too (`move_of_worth` reads it)."""
    n = tables.cells
    shape = block.o_cells.shape
    worths: list[tuple[int, Ints | None, Codes]] = []
    best = np.zeros(shape, np.uint8)
    worst = np.full(shape, 255, np.uint8)
    for cell, rows, children in child_slots(tables, block, insert):
        worth = WORTH[below[children]]
        if rows is None:
            np.maximum(best, worth, out=best)
            np.minimum(worst, worth, out=worst)
        else:
            best[rows] = np.maximum(best[rows], worth)
            worst[rows] = np.minimum(worst[rows], worth)
        if masks:
            worths.append((cell, rows, worth))
    if not masks:
        return BlockMoves(best, worst)
    best_class = best >> 6
    drawn = best_class == 1
    keeping = np.zeros(shape, np.int64)
    fastest = np.zeros(shape, np.int64)
    by_cell = np.zeros((*shape, n), np.uint8)
    for cell, rows, worth in worths:
        bit = np.int64(1 << cell)
        if rows is None:
            keeping |= np.where((worth >> 6) == best_class, bit, 0)
            fastest |= np.where((worth == best) | (drawn & ((worth >> 6) == 1)), bit, 0)
            by_cell[:, :, cell] = worth
        else:
            keeping[rows] |= np.where((worth >> 6) == best_class[rows], bit, 0)
            fastest[rows] |= np.where((worth == best[rows]) | (drawn[rows] & ((worth >> 6) == 1)), bit, 0)
            by_cell[rows, :, cell] = worth
    return BlockMoves(best, worst, keeping, fastest, by_cell)


def block_codes(state: BlockState, moves: BlockMoves | None) -> Codes:
    """The code the rules and the children give each slot of a block: a finished board's loss or
    draw now, a board in play its best move's code (`moves`: None for a full board's level), 0
    where unreachable. The retrograde rule, in one place: the builder writes these codes, and the
    checks and verify hold the stored ones to them."""
    finished = np.where(state.won, LOSS_NOW, DRAW_NOW).astype(np.uint8)
    codes = finished if moves is None else np.where(state.finished, finished, CODE[moves.best_worth])
    result: Codes = np.where(state.reachable, codes, 0).astype(np.uint8)
    return result


def hold_to_children(tables: Tables, level: Codes, block: Block, state: BlockState, moves: BlockMoves | None) -> None:
    """DatabaseDamagedError at the block's first slot whose code in `level` (expanded: every
    reachable slot its representative's) is not `block_codes`' (a code forged, resealed or not,
    or a reachable board left empty): what reads the core in bulk never serves one."""
    expected = block_codes(state, moves).ravel()
    wrong = np.flatnonzero(level[block.slots] != expected)
    if len(wrong):
        slot = int(wrong[0])
        board = boards_of_block(block, tables.cells, wrong[:1])[0]
        raise DatabaseDamagedError(
            f"{board}: core code {code_text(int(level[block.slots][slot]))}, its children give "
            f"{code_text(int(expected[slot]))}",
            f"table ttt_core, level {block.depth}",
        )


def move_of_worth(worth: int) -> tuple[int, int]:
    """(the move's value rank for the mover: 0 loss, 1 draw, 2 win; the plies left after it)."""
    rank, low = divmod(worth, REMOTENESS_LIMIT)
    return rank, (REMOTENESS_LIMIT - 1 - low if rank == value_rank("win") else low) - 1


def representatives(tables: Tables, block: Block) -> Flags:
    """Whether each slot is the smallest of its images' slots. An occupied set with a smaller
    image makes every slot of it a non-representative; only occupied sets that a symmetry maps
    onto themselves need o's cells compared."""
    occupied, o_cells = block.occupied, block.o_cells
    ranks = np.arange(block.first, block.first + len(occupied))
    keep = np.ones(o_cells.shape, bool)
    pattern_ranks = np.arange(o_cells.shape[1])
    for transform in range(1, len(tables.game.transforms)):
        image_ranks = tables.rank[tables.permute(occupied, transform)]
        keep[image_ranks < ranks] = False
        fixed = np.flatnonzero(image_ranks == ranks)
        if len(fixed) == 0:
            continue
        image = tables.permute(o_cells[fixed], transform)
        image_patterns = tables.rank[tables.extract(occupied[fixed], image)]
        keep[fixed] &= image_patterns >= pattern_ranks[None, :]
    return keep


def representative_slots(tables: Tables, block: Block) -> Ints:
    """Each slot's class representative: the smallest slot among its images."""
    per_set = comb(block.depth, o_count(block.depth))
    smallest = np.arange(block.slots.start, block.slots.stop, dtype=np.int64).reshape(block.o_cells.shape)
    for transform in range(1, len(tables.game.transforms)):
        image_sets = tables.permute(block.occupied, transform)
        image_cells = tables.permute(block.o_cells, transform)
        image = tables.rank[image_sets][:, None] * per_set + tables.rank[tables.extract(image_sets, image_cells)]
        np.minimum(smallest, image, out=smallest)
    return smallest


def canonical_boards(tables: Tables, block: Block) -> Flags:
    """Whether each slot's board is its class's canonical board: the smallest image as text
    (`ttt_db.game.symmetry.canonical_board`), that is the smallest base-3 key."""
    own = tables.keys(block.occupied, block.o_cells)
    smallest = own.copy()
    for transform in range(1, len(tables.game.transforms)):
        image_sets = tables.permute(block.occupied, transform)
        np.minimum(smallest, tables.keys(image_sets, tables.permute(block.o_cells, transform)), out=smallest)
    canonical: Flags = own == smallest
    return canonical


def expand_level(tables: Tables, depth: int, stored: Codes) -> Codes:
    """Every reachable slot's code from a stored level, which keeps only each class's
    representative: a slot takes the code of its smallest image."""
    codes = np.zeros(level_slots(tables.cells, depth), np.uint8)
    for block in tables.blocks(depth):
        codes[block.slots] = stored[representative_slots(tables, block).ravel()]
    return codes


def boards_of_block(block: Block, cells: int, where: Ints | None = None) -> list[str]:
    """The board text of the block's slots (`where`: their offsets in the block; all by default),
    in slot order."""
    occupied = np.broadcast_to(block.occupied[:, None], block.o_cells.shape).ravel()
    o_cells = block.o_cells.ravel()
    if where is not None:
        occupied, o_cells = occupied[where], o_cells[where]
    shifts = np.arange(cells, dtype=np.int64)
    marks = ((occupied[:, None] >> shifts) & 1) + ((o_cells[:, None] >> shifts) & 1)  # 0 empty, 2 o, 1 x
    text = np.frombuffer(b".xo", np.uint8)[marks].tobytes().decode("ascii")
    return [text[i : i + cells] for i in range(0, len(text), cells)]


def orbit_sizes(tables: Tables, block: Block, where: Ints) -> Ints:
    """How many distinct boards the symmetries make of each of the block's slots `where`."""
    patterns = block.o_cells.shape[1]
    occupied = block.occupied[where // patterns]
    o_cells = block.o_cells.ravel()[where]
    per_set = comb(block.depth, o_count(block.depth))
    images = [block.slots.start + where]
    for transform in range(1, len(tables.game.transforms)):
        image_sets = tables.permute(occupied, transform)
        image_cells = tables.permute(o_cells, transform)
        images.append(
            tables.rank[image_sets] * per_set + tables.rank[tables.extract(image_sets, image_cells[:, None])[:, 0]]
        )
    stacked = np.sort(np.stack(images), axis=0)
    sizes: Ints = 1 + np.count_nonzero(stacked[1:] != stacked[:-1], axis=0)
    return sizes
