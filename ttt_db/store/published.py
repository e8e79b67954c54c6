"""The published figures of tic-tac-toe (docs/figures.md), which `verify` holds a database to."""

from __future__ import annotations

from typing import Final

TREE_NODES_BY_DEPTH: Final = (1, 9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872)
POSITIONS_BY_DEPTH: Final = (1, 9, 72, 252, 756, 1260, 1520, 1140, 390, 78)
LIST_SIZES: Final = {
    "all": 5478,
    "canonical": 765,
    "playing": 4520,
    "playing_canonical": 627,
    "decision": 3191,
    "decision_canonical": 431,
}
VALUES: Final = {"win": 2836, "loss": 1574, "draw": 1068}
VALUES_CANONICAL: Final = {"win": 390, "loss": 224, "draw": 151}
