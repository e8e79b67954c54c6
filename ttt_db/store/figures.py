"""The figures of a build per depth: one type for the builder's summary, `info` and its document."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass


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
