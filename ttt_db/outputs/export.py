"""Export positions as JSON lines or CSV, and read such exports back; and tic-tac-toe's finished
boards as the UCI Tic-Tac-Toe Endgame data set.

Both formats carry the same record (`Position.to_record`). In CSV, list fields (`best_moves`,
`best_moves_shortest`, `playout`) are JSON text and an empty `to_move` means none.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, BinaryIO, Final, TextIO

from ttt_db.game.definition import Game
from ttt_db.game.rules import EMPTY, mover_at, swap_marks
from ttt_db.json_text import read_json
from ttt_db.ranked.codes import value_of_code
from ttt_db.ranked.lines import LineTemplate, TextPool, lines_written

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from ttt_db.outputs.export_rows import LevelExtras, RowBlock
    from ttt_db.position import Position


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
    """Positions as JSON lines, one record (`Position.to_record`) at a time: the definition the bulk
    writer (`write_lines`) is held to."""
    for position in positions:
        stream.write(json.dumps(position.to_record()) + "\n")


def write_csv(positions: Iterable[Position], stream: TextIO) -> None:
    """Positions as CSV, one record at a time (as `write_jsonl`)."""
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


_BOARD, _BOARD_X, _CODE, _BEST, _FASTEST, _CLASS, _CANONICAL, _CANONICAL_X, _ORBIT = range(9)
"""The columns a line's parts read (`ttt_db.ranked.kernels.lines.write_lines`' values): a board is its o's
cells and, in the next column, its x's."""
_CONSTANT: Final = -1
_CODE_FIELDS: Final = ("to_move", "status", "score", "value", "remoteness", "sv_score")
_CLASS_FIELDS: Final = ("playout", "paths", "playout_odds")
_TABLE, _MOVES, _KEY = 0, 1, 2  # the kinds of part


@dataclass
class _Part:
    """A part of every line: a piece of text from a table indexed by a column (`_TABLE`; one
    piece: a constant), a move list from its cell mask (`_MOVES`), or a board (`_KEY`)."""

    kind: int
    column: int
    texts: list[str]


def write_lines(blocks: Iterable[RowBlock], stream: BinaryIO, *, as_csv: bool, counted: Callable[[int], None]) -> int:
    """The rows of `blocks` as JSON lines (or CSV, its header first), each line the text
    `write_jsonl` (`write_csv`) writes for the same position, written a block at a time by the
    kernel `write_lines` from tables of pieces (a level's codes, orbits and classes), move lists
    from their cell masks and boards from their keys. `counted(rows)` is told after each block;
    returns the rows written."""
    import numpy as np

    if as_csv:
        stream.write((",".join(FIELDS) + "\n").encode())
    written, level, parts, fixed = 0, -1, list[_Part](), _pool([])
    for block in blocks:
        if block.depth != level:
            level = block.depth
            parts = _line_parts(block.game, level, block.extras, as_csv=as_csv)
            texts = [text for part in parts if part.kind == _TABLE for text in part.texts]
            fixed = _pool(texts + _cell_texts(block.game.cells))
        values = np.zeros((9, block.rows), np.int64)
        values[_BOARD : _BOARD_X + 1] = block.boards[:, :2].T
        values[_CANONICAL : _CANONICAL_X + 1] = block.boards[:, 2:].T
        values[_CODE], values[_ORBIT] = block.codes, block.orbits
        values[_BEST], values[_FASTEST] = block.best, block.fastest
        if block.classes is not None:
            values[_CLASS] = block.classes
        stream.write(_written(block, parts, fixed, values, as_csv=as_csv))
        written += block.rows
        counted(block.rows)
    return written


def _pool(texts: list[str]) -> TextPool:
    """`texts` as one buffer of bytes, each at its start with its length."""
    import numpy as np

    encoded = [text.encode() for text in texts]
    length = np.fromiter(map(len, encoded), np.int64, len(encoded))
    return TextPool(np.frombuffer(b"".join(encoded) or b"\0", np.uint8), np.cumsum(length) - length, length)


def _written(
    block: RowBlock, parts: list[_Part], fixed: TextPool, values: NDArray[np.int64], *, as_csv: bool
) -> memoryview:
    """The block's lines, written by the kernel `write_lines` into a buffer long enough for each
    line's longest pieces."""
    import numpy as np

    kinds = np.array([part.kind for part in parts], np.int64)
    columns = np.array([part.column for part in parts], np.int64)
    bases = np.zeros(len(parts), np.int64)
    longest = 0  # a line's length at most: the buffer holds every line, written once
    base = 0
    for t, part in enumerate(parts):
        if part.kind == _TABLE:
            bases[t] = base
            longest += int(fixed.length[base : base + len(part.texts)].max())
            base += len(part.texts)
        elif part.kind == _MOVES:
            longest += _longest_list(block.game.cells)
        else:
            longest += block.game.cells
    template = LineTemplate(kinds, columns, bases, base)
    return lines_written(block.backend, block.rows, block.game.cells, template, fixed, values, longest, quoted=as_csv)


def _cell_texts(cells: int) -> list[str]:
    """For each byte b of a cell mask (4 of them) and each of its 256 values, its cells as text with
    `, ` between them (the pieces of `write_lines`' move lists, after the template's)."""
    return [
        ", ".join(str(8 * b + i) for i in range(8) if byte >> i & 1 and 8 * b + i < cells)
        for b in range(4)
        for byte in range(256)
    ]


def _longest_list(cells: int) -> int:
    """The length of the longest move list `write_lines` writes: every cell, in CSV's quotes."""
    return 4 + sum(1 if cell < 10 else 2 for cell in range(cells)) + 2 * (cells - 1)


def _line_parts(game: Game, depth: int, extras: LevelExtras | None, *, as_csv: bool) -> list[_Part]:
    """A level's line as parts (`_Part`), in FIELDS' order, neighbouring tables merged."""
    from ttt_db.position import value_fields

    text = _csv_text if as_csv else _json_text
    record: dict[str, Any] = {
        "depth": depth,
        "first": "o",
        "score_viewpoint": "o",
        "value_viewpoint": mover_at(depth),
        "game": game.name,
    }
    by_code = [value_of_code(code) for code in range(256)]
    codes = [None if own is None else value_fields(game, depth, own) for own in by_code]
    classes = _class_texts(extras, as_csv=as_csv)
    parts: list[_Part] = []
    for i, key in enumerate(FIELDS):
        parts.append(
            _Part(_TABLE, _CONSTANT, [("" if i == 0 else ",") if as_csv else ("{" if i == 0 else ", ") + f'"{key}": '])
        )
        quote = [_Part(_TABLE, _CONSTANT, ['"' if not as_csv else ""])]
        if key in ("board", "canonical"):
            parts += [*quote, _Part(_KEY, _BOARD if key == "board" else _CANONICAL, []), *quote]
        elif key in _CODE_FIELDS:
            parts.append(_Part(_TABLE, _CODE, ["" if fields is None else text(key, fields[key]) for fields in codes]))
        elif key in ("best_moves", "best_moves_shortest"):
            parts.append(_Part(_MOVES, _BEST if key == "best_moves" else _FASTEST, []))
        elif key in _CLASS_FIELDS:
            found = classes.get(key)
            parts.append(_Part(_TABLE, _CONSTANT, [text(key, None)]) if found is None else _Part(_TABLE, _CLASS, found))
        elif key == "orbit":
            parts.append(_Part(_TABLE, _ORBIT, [text(key, orbit) for orbit in range(len(game.transforms) + 1)]))
        else:
            parts.append(_Part(_TABLE, _CONSTANT, [text(key, record[key])]))
    parts.append(_Part(_TABLE, _CONSTANT, ["\n" if as_csv else "}\n"]))
    return _merged(parts)


def _merged(parts: list[_Part]) -> list[_Part]:
    """Neighbouring table parts of one column (or a constant) as one: fewer pieces a line."""
    merged: list[_Part] = []
    for part in parts:
        last = merged[-1] if merged else None
        if (
            last is None
            or last.kind != _TABLE
            or part.kind != _TABLE
            or _CONSTANT not in (last.column, part.column)
            and last.column != part.column
        ):
            merged.append(part)
            continue
        if last.column == _CONSTANT:
            (head,) = last.texts
            merged[-1] = _Part(_TABLE, part.column, [head + piece for piece in part.texts])
        elif part.column == _CONSTANT:
            (tail,) = part.texts
            last.texts = [piece + tail for piece in last.texts]
        else:
            last.texts = [a + b for a, b in zip(last.texts, part.texts, strict=True)]
    return merged


def _class_texts(extras: LevelExtras | None, *, as_csv: bool) -> dict[str, list[str]]:
    """The text of each class's `playout`, `paths` and `playout_odds` (none without extras): the JSON
    of each, in CSV the lists and objects quoted as CSV quotes any field with a comma."""
    if extras is None:
        return {}
    values = extras.values
    floats = list(map(repr, (values[:, :3] / extras.ways).reshape(-1).tolist()))  # json.dumps writes a float so
    triples = list(zip(floats[0::3], floats[1::3], floats[2::3], strict=True))
    texts = {
        "playout": [f"[{o}, {x}, {d}]" for o, x, d in triples],
        "paths": list(map(str, values[:, 3].tolist())),
        "playout_odds": [f'{{"o": {o}, "x": {x}, "draw": {d}}}' for o, x, d in triples],
    }
    if as_csv:
        for key in ("playout", "playout_odds"):
            texts[key] = ['"' + text.replace('"', '""') + '"' for text in texts[key]]
    return texts


def _json_text(key: str, value: Any) -> str:
    return json.dumps(value)


def _csv_text(key: str, value: Any) -> str:
    """A field as `write_csv` writes it: list fields as JSON text, quoted where CSV needs it."""
    buffer = io.StringIO()
    field = json.dumps(value) if key in _JSON_FIELDS else "" if value is None else value
    csv.writer(buffer, lineterminator="\n").writerow([field, "-"])  # a field alone is quoted when empty
    return buffer.getvalue().removesuffix(",-\n")


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
            yield read_json(line)


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
