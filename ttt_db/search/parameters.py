"""The parameterised searches' names at a typical setting and how their parameters are read
(`dls@N`, `abdls@N`, `iddfs@SECONDS`): what the AI registry needs to name them, without loading
the searches (`ttt_db.search.algorithms`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from ttt_db.game.definition import Game

PARAMETERISED_EXAMPLES: Final = ("dls@3", "abdls@3", "iddfs@0.01")
"""The parameterised searches at a typical setting: `search --all` runs them, `check --all` their AIs."""


def parse_depth(text: str, game: Game) -> int | None:
    """The depth of `dls@N`/`abdls@N`: ASCII digits from 0 to the game's cells; None otherwise."""
    return int(text) if text.isascii() and text.isdigit() and int(text) <= game.cells else None


def parse_seconds(text: str) -> float | None:
    """The time of `iddfs@SECONDS`: a finite decimal number above 0 (`0.1`, `2`); None otherwise
    (NaN, infinities, exponents and signs are refused)."""
    whole, _, fraction = text.partition(".")
    if not (text.isascii() and (whole + fraction).isdigit()):
        return None
    seconds = float(text)
    return seconds if seconds > 0 else None
