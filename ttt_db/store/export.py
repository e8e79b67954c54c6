"""Export positions as JSON lines or CSV, and read such exports back.

Both formats carry the same record (`Position.to_record`). In CSV, list fields (`best_moves`,
`best_moves_shortest`, `playout`) are JSON text and an empty `to_move` means none.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator
from typing import Any, TextIO

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
