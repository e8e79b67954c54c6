"""The level kernels: every per-slot loop over the ranked core, written once, a source per theme.

The functions here are plain Python over flat arrays of integers (indexing, arithmetic, `range`,
`min`, `max`, calls to each other), so one source runs two ways (`ttt_db.ranked.backend`):
interpreted over `bytearray`s and `array`s for a game too small to pay for a compiler (no numpy,
no numba imported), and compiled by numba over numpy arrays, without the GIL, for every larger
one. Nothing here allocates: the caller (a face in `ttt_db.ranked`) hands in every output and
scratch array.

Notation. A level `d` holds every board with `d` marks; its occupied sets (bit masks of `n`
cells) are ranked in colex order (`rank_of`), and a set's `P = C(d, o)` boards are ranked by the
pattern of o's marks over the set's cells (bit `i` of a pattern is the set's `i`-th cell). A
set's canonical set is the least-ranked image of it under the board's symmetries; `ci[s]` is the
index of set `s`'s canonical set among the level's canonical sets and `xf[s]` a symmetry that
maps it there. A level is held as the codes of every board of its canonical sets (`ncan * P`
bytes): any other board's code is its image's. Symmetries act on cells through `ptab` (a mask
moved a byte at a time) and `cellimg` (one cell). Tables of a pattern moved from one set onto
another are built per set (`pattern_tables`): four byte tables, so a board's image pattern is
four lookups.

Kernels take a game's arrays as one tuple, `game = (n, nsym, rank_of, ptab, cellimg, binom,
lines, worth, code_of_worth, powers)` (`RankedTables.arrays`), and a level's as another, `level =
(d, ci, xf, cset, count, pat)` (`LevelSets.arrays`, `count` the level's patterns per set).

Codes and worths (`ttt_db.ranked.codes`): `worth[child code]` is the move's worth to the mover
(larger is better, its value class in the top two bits), `code_of_worth[best worth]` the parent's
code.

The sources, each importing only those before it in `THEMES`: `sets` (ranks, symmetries, pattern
tables, the shared constants and scratch layout), `step` (`solve_sets`), `layout` (the stored
numbering), `moves` (`chosen_move`, `move_kinds`, `set_moves`, `slot_moves`), `blocks`, `family`,
`playouts`, `marks`, `policy`, `lines`; the face of the same name in `ttt_db.ranked` calls each
(`tables` the sets', `walk` also layout's `differing_codes`, `blocks` also moves' `slot_moves`).
"""

from __future__ import annotations

from typing import Final

THEMES: Final = ("sets", "step", "layout", "moves", "blocks", "family", "playouts", "marks", "policy", "lines")
"""The kernel sources in the order the compiled backend loads them: each imports only those before it."""
