"""The search trace format (docs/trace.md): JSON Lines any program can write, one header and
then an `enter` and an `exit` event per node in visit order. `Enter` and `Exit` are the events
themselves: the engine emits them, `TraceWriter` writes them, the page receives them, and
`ttt_db.search.trace_check` reads them back.

    {"type": "header", "format": "ttt-db-trace", "version": 1, "algorithm": "...",
     "board": ".........", "first": "o", "scale": "wdl", "game": "3x3k3"}
    {"type": "enter", "id": 1, "parent": null, "board": ".........", "ply": 0, "move": null,
     "alpha": null, "beta": null}
    {"type": "exit", "id": 1, "value": 0, "cutoff": false, "probe": null, "store": null,
     "estimate": false}

Values and windows are from the first player's side on the header's scale.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, fields
from typing import IO, Any, Final, Literal

from ttt_db.game.rules import Mark, swap_marks

FORMAT: Final = "ttt-db-trace"
VERSION: Final = 1
SCALES: Final = ("wdl", "shortest", "plies")
WIN_SCORE: Final = 1000
"""On the `plies` scale a win p plies below the root scores WIN_SCORE - p."""

Probe = Literal["miss", "narrowed", "exact", "bound"] | None
Store = Literal["exact", "upper", "lower"] | None


def json_bound(bound: float | None) -> float | str | None:
    """A window bound as the format writes it: a number, null, or an infinity as `"inf"` or
    `"-inf"` (never JSON's non-standard -Infinity)."""
    if bound is None or math.isfinite(bound):
        return bound
    return "inf" if bound > 0 else "-inf"


@dataclass(frozen=True, slots=True)
class Enter:
    """A node entered: its window on entry (None: the search has no window there)."""

    id: int
    parent: int | None
    board: str
    ply: int
    move: int | None
    alpha: float | None  # a number; another program's trace may hold infinities
    beta: float | None

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "enter",
            "id": self.id,
            "parent": self.parent,
            "board": self.board,
            "ply": self.ply,
            "move": self.move,
            "alpha": json_bound(self.alpha),
            "beta": json_bound(self.beta),
        }


@dataclass(frozen=True, slots=True)
class Exit:
    """A node left: its value, whether it cut off, what the table did, whether the value rests on an
    estimate at a depth limit."""

    id: int
    value: int
    cutoff: bool
    probe: Probe
    store: Store
    estimate: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "exit",
            "id": self.id,
            "value": self.value,
            "cutoff": self.cutoff,
            "probe": self.probe,
            "store": self.store,
            "estimate": self.estimate,
        }


ENTER_FIELDS: Final = tuple(field.name for field in fields(Enter))
"""The fields of an `enter` record, in the order `Enter` takes them."""


def header(algorithm: str, board: str, scale: str, first: Mark, game: str) -> dict[str, Any]:
    """The first record of a trace."""
    return {
        "type": "header",
        "format": FORMAT,
        "version": VERSION,
        "algorithm": algorithm,
        "board": board,
        "first": first,
        "scale": scale,
        "game": game,
    }


class TraceWriter:
    """Writes a search's events to a stream as JSON Lines (an engine's `Tracer`)."""

    def __init__(self, stream: IO[str], first_record: dict[str, Any], *, swapped: bool = False) -> None:
        """`swapped`: the search ran on the mark-swapped board (x moved first): its boards are
        written back with their marks as the user gave them (the header says `"first": "x"`)."""
        self.write = stream.write
        self.swapped = swapped
        self.write(json.dumps(first_record) + "\n")

    def __call__(self, event: Enter | Exit) -> None:
        record = event.to_json()
        if self.swapped and "board" in record:
            record["board"] = swap_marks(record["board"])
        self.write(json.dumps(record) + "\n")
