"""Export positions as JSON lines or CSV, and read such exports back; and tic-tac-toe's finished
boards as the UCI Tic-Tac-Toe Endgame data set.

Both formats carry the same record (`Position.to_record`). In CSV, list fields (`best_moves`,
`best_moves_shortest`, `playout`) are JSON text and an empty `to_move` means none.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator
from typing import Any, TextIO

from ttt_db.game.rules import EMPTY, swap_marks
from ttt_db.store.position import Position

FIELDS = (
    "board",
    "to_move",
    "status",
    "score",
    "value",
    "remoteness",
    "sv_score",
    "best_moves",
    "best_moves_shortest",
    "playout",
    "paths",
    "canonical",
    "depth",
    "first",
    "score_viewpoint",
    "value_viewpoint",
    "playout_odds",
    "orbit",
    "game",
)
_JSON_FIELDS = frozenset({"best_moves", "best_moves_shortest", "playout", "playout_odds"})
_INT_FIELDS = frozenset({"score", "remoteness", "sv_score", "paths", "depth", "orbit"})


def write_jsonl(positions: Iterable[Position], stream: TextIO) -> None:
    for position in positions:
        stream.write(json.dumps(position.to_record()) + "\n")


def write_csv(positions: Iterable[Position], stream: TextIO) -> None:
    writer = csv.DictWriter(stream, fieldnames=FIELDS, lineterminator="\n")
    writer.writeheader()
    for position in positions:
        record = position.to_record()
        writer.writerow(
            {
                key: json.dumps(value) if key in _JSON_FIELDS else ("" if value is None else value)
                for key, value in record.items()
            }
        )


UCI_ORDER = {"x": 0, "o": 1, EMPTY: 2}
"""The UCI file's order within each group: cell by cell, x before o before blank."""


def uci_endgame_rows(positions: Iterable[Position]) -> list[str]:
    """Tic-tac-toe's finished boards as the UCI Tic-Tac-Toe Endgame data set writes them (Aha,
    1991): x moved first (each stored board's marks swapped), the cells in reading order as x, o
    or b, then "positive" for a win for x, else "negative"; x's wins first, then o's, then the
    draws, each group in the file's order (`UCI_ORDER`)."""
    groups: dict[int, list[str]] = {0: [], 1: [], 2: []}
    for position in positions:
        if position.status == "playing":
            continue
        board = swap_marks(position.cells)  # o moved first in the store: x did in the data set
        groups[{"o": 0, "x": 1, "draw": 2}[position.status]].append(board)
    rows = []
    for group, boards in groups.items():
        label = "positive" if group == 0 else "negative"
        for board in sorted(boards, key=lambda cells: [UCI_ORDER[cell] for cell in cells]):
            rows.append(",".join("b" if cell == EMPTY else cell for cell in board) + f",{label}")
    return rows


def read_jsonl(stream: TextIO) -> Iterator[dict[str, Any]]:
    for line in stream:
        if line.strip():
            yield json.loads(line)


def read_csv(stream: TextIO) -> Iterator[dict[str, Any]]:
    for row in csv.DictReader(stream):
        record: dict[str, Any] = {}
        for key, text in row.items():
            if key in _JSON_FIELDS:
                record[key] = json.loads(text)
            elif key in _INT_FIELDS:
                record[key] = int(text)
            else:
                record[key] = text or None
        yield record
