"""A game's tables for the level kernels (`ttt_db.ranked.kernels`), and each level's sets.

`RankedTables` holds what every level shares: the colex rank of every mask of the board's cells,
the symmetries as byte tables and cell maps, the winning lines as masks, the worth tables.
`LevelSets` holds one level's: each occupied set's canonical set and the symmetry that maps it
there, the canonical sets in rank order, the o-patterns of a set, and (to solve the level) the
insert table. A level's codes are `canonical * patterns` bytes: the boards of its canonical sets.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from functools import cached_property
from math import comb
from typing import Final

from ttt_db.game.definition import Game
from ttt_db.ranked.backend import Backend, choose_backend
from ttt_db.ranked.codes import CODE_OF_WORTH, WORTH
from ttt_db.ranked.kernels.sets import RANK_BYTES, SMALL_SIZE, STRIDE, TABLE_SIZE, Ints
from ttt_db.ranked.slots import level_sizes, mask_tables, o_count

CACHED_LEVELS: Final = 4
"""Levels whose sets a game's tables keep (a walk holds two at a time)."""


@dataclass(frozen=True)
class LevelSets:
    """The occupied sets of one level (see the module)."""

    depth: int
    sets: int  # C(cells, depth)
    ci: Ints  # [set rank] the index of its canonical set
    xf: Ints  # [set rank] a symmetry mapping it onto its canonical set
    canonical: int  # how many sets are canonical
    cset: Ints  # [canonical index] its rank
    patterns: int  # boards per set: C(depth, o's marks)
    pat: Ints  # [pattern rank] o's marks over the set's cells
    tables: RankedTables = field(repr=False, compare=False)

    @property
    def size(self) -> int:
        """Bytes of the level's codes: every board of its canonical sets."""
        return self.canonical * self.patterns

    def index_of(self, slot: int) -> int | None:
        """Where the board of a stored slot (`ttt_db.ranked.slots.slot_of`) sits in the level's
        codes, `c * patterns + p`; None when its occupied set is not canonical (its image stands
        for it there)."""
        rank, p = divmod(slot, self.patterns)
        c = int(self.ci[rank])
        return c * self.patterns + p if int(self.cset[c]) == rank else None

    @cached_property
    def arrays(self) -> tuple[int, Ints, Ints, Ints, int, Ints]:
        """The level as the kernels take it (`level` in `ttt_db.ranked.kernels`)."""
        return (self.depth, self.ci, self.xf, self.cset, self.patterns, self.pat)

    def move_scratch(self) -> MoveScratch:
        """A worker's own scratch for the kernels that read each set's moves (`set_moves`)."""
        b, boards = self.tables.backend, self.patterns * self.tables.cells
        return MoveScratch(b.i64(boards), b.u8(boards), b.i64(5 * self.patterns), b.i64(SMALL_SIZE), b.u32(TABLE_SIZE))

    @cached_property
    def insert(self) -> Ints:
        """[m * patterns + p]: the rank, in the level below, of pattern p with the mover's bit put in
        at position m (what a move of a set onto its canonical child reads)."""
        tables = self.tables
        insert = tables.backend.u32((self.depth + 1) * self.patterns)
        mover_bit = 1 if self.depth % 2 == 0 else 0
        tables.run.fill_insert(self.depth, self.patterns, self.pat, tables.rank_of, mover_bit, insert)
        return insert

    def orbit_weights(self) -> Ints:
        """[c * patterns + p]: how many boards board p of canonical set c stands for (its class's size
        at its class's representative, 0 at every other board)."""
        tables, b = self.tables, self.tables.backend
        weights = b.i64(self.size)
        small, tab = b.i64(SMALL_SIZE), b.u32(TABLE_SIZE)
        tables.run.orbit_weights(tables.arrays, self.arrays, 0, self.canonical, weights, small, tab)
        return weights


@dataclass(frozen=True)
class MoveScratch:
    """Scratch for `ttt_db.ranked.kernels.moves.set_moves` (a set's children, their worths, each board's
    counts) and the kernels' `small` and `tab`."""

    kids: Ints
    worths: Ints
    per: Ints
    small: Ints
    tab: Ints


class RankedTables:
    """One game's tables on one backend (interpreted for a small game, compiled otherwise)."""

    def __init__(self, game: Game, backend: Backend | None = None) -> None:
        self.game = game
        self.cells = n = game.cells
        self.symmetries = len(game.transforms)
        self.backend = backend or choose_backend(sum(level_sizes(n)))
        self.run = self.backend.run
        b = self.backend
        self.binom = b.i64_of([comb(i, j) for i in range(STRIDE) for j in range(STRIDE)])
        self.rank_of = b.u32(1 << n)
        self.run.fill_ranks(n, self.binom, self.rank_of)
        images = [list(inverse) + [0] * (32 - n) for inverse in game.inverses]
        self.cellimg = b.i64_of([cell for row in images for cell in row])
        self.ptab = b.i64_of(mask_tables(game))
        self.undo = b.i64_of([game.inverses.index(transform) for transform in game.transforms])
        self.lines = b.i64_of(list(game.line_masks))
        self.powers = b.i64_of([3 ** (n - 1 - cell) for cell in range(n)])
        self.worth = b.u8_of(WORTH)
        self.code_of_worth = b.u8_of(CODE_OF_WORTH)
        self.arrays = (
            n,
            self.symmetries,
            self.rank_of,
            self.ptab,
            self.cellimg,
            self.binom,
            self.lines,
            self.worth,
            self.code_of_worth,
            self.powers,
        )
        """The game as the kernels take it (`game` in `ttt_db.ranked.kernels`)."""
        self._levels: OrderedDict[int, LevelSets] = OrderedDict()

    @cached_property
    def key_bytes(self) -> Ints:
        """[(k * 4 + b) * 256 + byte]: the base-3 key of o's marks on the cells of byte b of a mask,
        moved by symmetry k (`ttt_db.ranked.kernels.sets.key_tables`)."""
        found = self.backend.i64(self.symmetries * 4 * 256)
        self.run.key_tables(self.arrays, found)
        return found

    @cached_property
    def rank_bytes(self) -> Ints:
        """The colex ranks of masks a byte at a time (`ttt_db.ranked.kernels.sets.fill_rank_bytes`):
        for kernels that rank scattered masks, whose lookups in `rank_of` would miss the cache."""
        found = self.backend.u32(RANK_BYTES + 256)
        self.run.fill_rank_bytes(self.cells, self.binom, found)
        return found

    def level(self, depth: int) -> LevelSets:
        found = self._levels.get(depth)
        if found is None:
            found = self._levels[depth] = self._make_level(depth)
            while len(self._levels) > CACHED_LEVELS:
                self._levels.popitem(last=False)
        else:
            self._levels.move_to_end(depth)
        return found

    def _make_level(self, depth: int) -> LevelSets:
        b, n = self.backend, self.cells
        sets = comb(n, depth)
        ci, xf = b.u32(sets), b.u8(sets)
        canonical = self.run.mark_sets(
            n, depth, self.symmetries, self.rank_of, self.ptab, self.undo, self.binom, ci, xf
        )
        cset = b.i64(canonical)
        self.run.list_canonical(sets, ci, cset)
        o = o_count(depth)
        patterns = comb(depth, o)
        pat = b.u32(patterns)
        self.run.fill_patterns(o, patterns, pat)
        return LevelSets(depth, sets, ci, xf, canonical, cset, patterns, pat, self)
