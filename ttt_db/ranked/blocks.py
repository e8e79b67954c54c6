"""A walk's level in blocks of boards, for the readers and checks that look at boards.

A `Block` is some consecutive sets of a held level (`ttt_db.ranked.walk.Step`): its canonical
sets (each class once, at its representative: `weights` are class sizes, 0 at a board that is
not its class's representative) or every set in rank order (each board itself: `weights` all 1,
the stored numbering's order). It carries each board's code and, where asked, every move's worth
from the level below (`BlockMoves`, `ttt_db.ranked.kernels.moves.slot_moves`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final

from ttt_db.game.definition import boards_of_keys
from ttt_db.ranked.backend import Backend, as_list
from ttt_db.ranked.kernels.sets import SMALL_SIZE, TABLE_SIZE, Ints
from ttt_db.ranked.step import Level
from ttt_db.ranked.tables import LevelSets, RankedTables
from ttt_db.ranked.walk import Step

BLOCK_SLOTS: Final = 1 << 16
"""Boards per block (at least one set's)."""


@dataclass(frozen=True)
class BlockMoves:
    """Every move of the boards a block counts in play (`ttt_db.ranked.kernels.moves.slot_moves`; nothing
    is derived at any other slot, whose moves read as none)."""

    worths: Ints  # [j * cells + cell]
    best: Ints
    worst: Ints
    best_mask: Ints
    fast_mask: Ints


@dataclass(frozen=True)
class BlockRows:
    """Some boards of a block as rows (`Block.rows`): each told at its own board or at its class's
    canonical board, with its moves carried there."""

    boards: Ints  # [4 * row]: the board's o's and x's cells, then its canonical board's
    class_keys: Ints  # the canonical board's base-3 key (`Game.key`)
    orbits: Ints
    codes: Ints
    worths: Ints  # [row * cells + cell], where asked
    best: Ints  # cell masks
    fastest: Ints


@dataclass(frozen=True)
class Block:
    tables: RankedTables
    sets: LevelSets
    first: int  # its first set: a canonical index, or a rank
    count: int  # sets
    canonical: bool
    codes: Ints
    weights: Ints
    moves: BlockMoves | None

    @property
    def depth(self) -> int:
        return self.sets.depth

    @property
    def size(self) -> int:
        return self.count * self.sets.patterns

    def set_rank(self, j: int) -> int:
        """The rank of block slot j's set."""
        i = self.first + j // self.sets.patterns
        return int(self.sets.cset[i]) if self.canonical else i

    def slot(self, j: int) -> int:
        """Block slot j's slot in the stored numbering."""
        return self.set_rank(j) * self.sets.patterns + j % self.sets.patterns

    def select(self, kind: int) -> list[int]:
        """The block slots it counts (at representatives, in a block of canonical sets) with a code
        that are: kind 0 any board, 1 a board in play, 2 a decision position."""
        return as_list(self.selected(kind))

    def selected(self, kind: int) -> Ints:
        """`select` as the backend's array (a numpy array where compiled)."""
        moves = self.moves
        if kind >= 1 and self.depth == self.tables.cells:
            return self.tables.backend.i64(0)  # the full board's level: every board is finished
        if kind == 2 and moves is None:
            raise ValueError("decision positions are found from a block's moves")
        where = self.tables.backend.i64(self.size)
        found = self.tables.run.select_slots(
            self.size,
            self.depth,
            self.tables.cells,
            kind,
            self.codes,
            self.weights,
            moves.best if moves is not None else self.codes,
            moves.worst if moves is not None else self.codes,
            where,
        )
        return where[:found]

    def boards(self, where: list[int]) -> list[str]:
        """The board text of block slots `where`."""
        b = self.tables.backend
        found = len(where)
        occupied, o_cells = b.i64(found), b.i64(found)
        self.tables.run.board_masks(
            self.tables.arrays,
            self.sets.arrays,
            self._kernel_sets(),
            self.first,
            b.i64_of(where),
            found,
            occupied,
            o_cells,
        )
        return board_texts(b, occupied, o_cells, self.tables.cells)

    def boards_at(self, where: list[int], *, canonical: bool) -> tuple[list[str], list[int]]:
        """The boards of block slots `where`, and the symmetry that made each of them from the slot's
        own: its class's canonical board when `canonical` (`orbits`), else the slot's own board (0)."""
        if not canonical:
            return self.boards(where), [0] * len(where)
        keys, transforms, _ = self.orbits(where)
        return boards_of_keys(keys, self.tables.game), transforms

    def _image_keys(self, where: list[int]) -> Ints:
        tables, b = self.tables, self.tables.backend
        keys = b.i64(len(where) * tables.symmetries)
        tables.run.image_keys(
            tables.arrays, self.sets.arrays, self._kernel_sets(), self.first, b.i64_of(where), len(where), keys
        )
        return keys

    def keys(self, where: list[int]) -> list[int]:
        """The base-3 keys (`Game.key`) of every distinct image of the boards at block slots `where`."""
        b, found = self.tables.backend, len(where)
        out = b.i64(found * self.tables.symmetries)
        written = self.tables.run.distinct_keys(found, self.tables.symmetries, self._image_keys(where), out)
        return as_list(out, written)

    def orbits(self, where: list[int]) -> tuple[list[int], list[int], list[int]]:
        """For the boards at block slots `where`: the key of each one's canonical board (its least
        image, `ttt_db.game.symmetry.canonical_board`), the first symmetry giving it, and how many
        boards its class has."""
        b, found = self.tables.backend, len(where)
        least, which, sizes = b.i64(found), b.i64(found), b.i64(found)
        self.tables.run.orbit_summary(found, self.tables.symmetries, self._image_keys(where), least, which, sizes)
        return as_list(least), as_list(which), as_list(sizes)

    def rows(self, where: Ints, *, to_class: bool, worths: bool) -> BlockRows:
        """The block slots `where` as rows (`ttt_db.ranked.kernels.blocks.export_rows`): each board, or with
        `to_class` (a block of canonical sets) its class's canonical board, its moves carried onto it
        (every move's worth only where `worths`)."""
        assert self.canonical or not to_class, "a class's row is made at its representative"
        tables = self.tables
        b, found = tables.backend, len(where)
        n = tables.cells if worths else 0
        rows = BlockRows(
            b.i64(4 * found), b.i64(found), b.i64(found), b.u8(found), b.u8(found * n), b.i64(found), b.i64(found)
        )
        moves = self.moves
        tables.run.export_rows(
            tables.arrays,
            self.sets.arrays,
            self._kernel_sets(),
            self.first,
            where,
            found,
            to_class,
            self.codes,
            self.weights,
            moves.worths if moves is not None else self.codes,
            moves.best_mask if moves is not None else self.codes,
            moves.fast_mask if moves is not None else self.codes,
            moves is not None,
            tables.key_bytes,
            b.i64(tables.symmetries),
            rows.boards,
            rows.class_keys,
            rows.orbits,
            rows.codes,
            rows.worths,
            rows.best,
            rows.fastest,
        )
        return rows

    def first_with_code(self, code: int) -> int | None:
        """The first block slot counted (a representative, in a block of canonical sets) whose
        board holds `code`, or None."""
        found = int(self.tables.run.first_with_code(self.size, self.codes, self.weights, code))
        return found if found >= 0 else None

    def class_slots(self) -> Ints:
        """The stored slot of the class representative of each board of a block of every set."""
        tables, b, sets = self.tables, self.tables.backend, self.sets
        out = b.i64(self.size)
        first = self.first
        tables.run.class_slots(
            tables.arrays, sets.arrays, first, first + self.count, out, b.i64(SMALL_SIZE), b.u32(TABLE_SIZE)
        )
        return out

    def _kernel_sets(self) -> Ints:
        return self.sets.cset if self.canonical else self.tables.backend.i64(0)


def board_chars(backend: Backend, occupied: Any, o_cells: Any, cells: int) -> Any:
    """Boards as characters (`.`, `x`, `o`), a row of `cells` bytes each (a numpy array of uint8),
    from numpy arrays of their occupied and o's cells (the kernel `board_letters`)."""
    import numpy as np

    found = len(occupied)
    out = np.zeros(found * cells, np.uint8)
    backend.run.board_letters(occupied, o_cells, found, cells, out)
    return out


def mask_cell_lists(backend: Backend, masks: Any, cells: int) -> tuple[Any, Any]:
    """Each cell mask's cells in order, as Arrow lists take them: the offsets (int32, one more
    than the masks) and every list's cells one after another (int8)."""
    import numpy as np

    found = len(masks)
    offsets = np.zeros(found + 1, np.int64)
    out = np.zeros(found * cells, np.int8)
    backend.run.mask_cells(masks, found, cells, offsets[1:], out)
    return offsets.astype(np.int32), out[: offsets[-1]]


def board_texts(backend: Backend, occupied: Ints, o_cells: Ints, cells: int) -> list[str]:
    """Boards as text from their occupied and o's cells (in arrays where the backend is compiled)."""
    if backend.compiled:
        text = board_chars(backend, occupied, o_cells, cells).tobytes().decode("ascii")
        return [text[i : i + cells] for i in range(0, len(text), cells)]
    return [
        "".join("o" if o >> cell & 1 else "x" if occ >> cell & 1 else "." for cell in range(cells))
        for occ, o in zip(occupied, o_cells, strict=True)
    ]


def blocks(tables: RankedTables, step: Step, *, canonical: bool, moves: bool) -> Iterator[Block]:
    """The step's level in blocks: its canonical sets, or every set in rank order; with every
    move's worth where `moves` (not at the full board)."""
    sets = step.here.sets
    b = tables.backend
    per_block = max(1, BLOCK_SLOTS // sets.patterns)
    total = sets.canonical if canonical else sets.sets
    small, tab = b.i64(SMALL_SIZE), b.u32(TABLE_SIZE)
    for first in range(0, total, per_block):
        count = min(per_block, total - first)
        size = count * sets.patterns
        if canonical:
            codes = step.here.codes[first * sets.patterns : (first + count) * sets.patterns]
            weights = b.i64(size)
            tables.run.orbit_weights(tables.arrays, sets.arrays, first, first + count, weights, small, tab)
        else:
            codes = b.u8(size)
            tables.run.expand_sets(tables.arrays, sets.arrays, first, first + count, step.here.codes, codes, small, tab)
            weights = b.i64_of([1] * size)
        block_moves = None
        if moves and step.below is not None:
            block_moves = _block_moves(
                tables, step.here.sets, step.below, first, count, codes, weights, canonical=canonical
            )
        yield Block(tables, sets, first, count, canonical, codes, weights, block_moves)


def _block_moves(
    tables: RankedTables,
    sets: LevelSets,
    below: Level,
    first: int,
    count: int,
    codes: Ints,
    weights: Ints,
    *,
    canonical: bool,
) -> BlockMoves:
    """Every move of the boards of sets first..first + count that the block counts in play (their
    `codes` and `weights` the block's), from the level below, the sets spread over the backend's
    workers (each writing its own part of the arrays)."""
    b, n, patterns = tables.backend, tables.cells, sets.patterns
    size = count * patterns
    found = BlockMoves(b.u8(size * n), b.u8(size), b.u8(size), b.i64(size), b.i64(size))
    chosen = sets.cset if canonical else b.i64(0)

    def own(array: Ints, lo: int, hi: int) -> Ints:
        # a worker's part of an array: a numpy view; the interpreted backend has one part, the whole
        return array[lo:hi] if b.compiled else array

    def part(worker: int, start: int, stop: int) -> None:
        lo, hi = start * patterns, stop * patterns
        tables.run.slot_moves(
            tables.arrays,
            sets.arrays,
            chosen,
            first + start,
            first + stop,
            sets.insert,
            below.codes,
            below.sets.arrays,
            own(codes, lo, hi),
            own(weights, lo, hi),
            own(found.worths, lo * n, hi * n),
            own(found.best, lo, hi),
            own(found.worst, lo, hi),
            own(found.best_mask, lo, hi),
            own(found.fast_mask, lo, hi),
            b.i64(SMALL_SIZE),
            b.u32(TABLE_SIZE),
        )

    b.spread(count, part, grain=max(1, 4_096 // patterns))
    return found


def level_keys(tables: RankedTables, step: Step, kind: int, *, canonical: bool) -> list[int]:
    """The base-3 keys of a walked level's boards of a kind (`Block.select`: 0 every board, 1 in
    play, 2 a decision position), sorted: every board, or (`canonical`) each class's canonical one."""
    keys: list[int] = []
    for block in blocks(tables, step, canonical=True, moves=kind == 2):
        where = block.select(kind)
        keys += block.orbits(where)[0] if canonical else block.keys(where)
    return sorted(keys)
