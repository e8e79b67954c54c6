"""The figures of a build: per depth (one type for the builder's summary, `info` and its document),
and in all, as the core gives them (the build records them, `verify` derives them again)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from ttt_db.errors import DatabaseDamagedError
from ttt_db.game.definition import Game
from ttt_db.game.rules import VALUES
from ttt_db.ranked.codes import value_of_code
from ttt_db.ranked.step import LevelCounts


@dataclass(frozen=True, slots=True)
class DepthFigures:
    """At one depth (moves made): tree nodes (move sequences), positions, positions up to symmetry."""

    depth: int
    tree_nodes: int | None  # None where the database keeps no rows (over 16 cells)
    positions: int
    canonical_positions: int

    def to_dict(self) -> dict[str, int]:
        return asdict(self)


def depth_figures(
    tree_nodes: Sequence[int | None], positions: Sequence[int], canonical: Sequence[int]
) -> list[DepthFigures]:
    """Per-depth figures from three columns indexed by depth."""
    return [DepthFigures(depth, *row) for depth, row in enumerate(zip(tree_nodes, positions, canonical, strict=True))]


def reached_depths(positions: Sequence[int]) -> int:
    """How many levels, from the empty board on, hold a position (by the positions per depth):
    games can end before the board is full (2x2k2 by depth 3), and the depth table stops there."""
    count = len(positions)
    while count > 1 and positions[count - 1] == 0:
        count -= 1
    return count


def core_figures(game: Game, levels: Sequence[LevelCounts], empty_board: int) -> dict[str, Any]:
    """The figures the core gives (`levels`: each level's counts, by depth): positions and classes,
    in play and decision positions, their values, the empty board's (from its code)."""
    empty = value_of_code(empty_board)
    if empty is None:
        raise DatabaseDamagedError("the empty board has no code", "table ttt_core, level 0")
    lists = [counts.lists() for counts in levels]
    return {
        "game": game.name,
        "positions": sum(counts.positions for counts in levels),
        "canonical_positions": sum(counts.canonical for counts in levels),
        **{name: sum(level[name] for level in lists) for name in lists[0]},
        "values": {value: sum(counts.values()[value] for counts in levels) for value in VALUES},
        "values_canonical": {value: sum(counts.values(canonical=True)[value] for counts in levels) for value in VALUES},
        "empty_board": {"value": empty[0], "remoteness": empty[1]},
    }
