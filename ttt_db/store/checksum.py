"""The checksums every stored row, node list, depth count and the meta table carry, written by
the builder and checked on every read, so that a damaged database refuses to answer.

Each checksum is seeded with the game the database solves (`seed`): rows moved under another
game's meta, or a meta rewritten to name another game, fail their checks, so the game a
database solves is proven by its content and not only by the meta's `rules` string.

A row has two: `moves_check` over the columns the best-moves table reads by themselves (key,
status and the two best-move masks: checks and AIs read them for a million boards at once),
and `row_check` over every column. A checksum is 32 bits, stored as a signed integer (four
bytes in SQLite): a damaged row passes by chance once in four billion.

The integer checksums fold their fields with the splitmix64 finaliser, in two forms that give
the same numbers: `checksum` in plain Python for a few rows (no numpy import on a lookup) and
`checksums` in numpy for many.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from operator import attrgetter, itemgetter
from typing import TYPE_CHECKING, Any, Final

from ttt_db.game.rules import STATUSES, VALUES
from ttt_db.store.tables import POSITION_COLUMNS, SCHEMA_VERSION

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

_MASK: Final = (1 << 64) - 1
_C1: Final = 0xBF58476D1CE4E5B9
_C2: Final = 0x94D049BB133111EB
_VALUE_WORDS: Final = 2
"""`move_values` (a byte per cell, at most 16) is folded as two little-endian 64-bit words."""

STATUS_CODES: Final = {status: code for code, status in enumerate(STATUSES)}
MARK_CODES: Final = {None: 0, "o": 1, "x": 2}
VALUE_CODES: Final = {value: rank for rank, value in enumerate(VALUES)}

_CODES: Final[dict[str, Mapping[Any, int]]] = {"status": STATUS_CODES, "to_move": MARK_CODES, "value": VALUE_CODES}

MOVES_FIELDS: Final = ("key", "status", "best_moves", "best_moves_shortest")
CHECK_COLUMNS: Final = ("moves_check", "row_check")
ROW_FIELDS: Final = tuple(column for column in POSITION_COLUMNS if column not in CHECK_COLUMNS)
"""The columns each check folds, in this order; text columns by their code, `move_values` as words."""
DEPTH_FIELDS: Final = ("depth", "tree_nodes", "positions", "canonical_positions")


def depth_numbers(counts: Sequence[int | None]) -> list[int]:
    """A depth row's counts as its checksum folds them: tree nodes, null where not counted, as -1."""
    return [-1 if count is None else count for count in counts]


def seed(game_name: str, part: str) -> int:
    """The starting value of the checksums of one part (`moves`, `row`, `depth`) of a game's database."""
    text = f"ttt-db schema {SCHEMA_VERSION} {game_name} {part}".encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "little")


def _to_int32(value: int) -> int:
    high = value >> 32
    return high - (1 << 32) if high >= 1 << 31 else high


def _words(blob: bytes) -> tuple[int, int]:
    padded = bytes(blob).ljust(8 * _VALUE_WORDS, b"\0")
    return int.from_bytes(padded[:8], "little"), int.from_bytes(padded[8:16], "little")


def field_numbers(row: Any, fields: Sequence[str]) -> list[int]:
    """The integers a row's fields are folded as (the row decoded already: every field of its type)."""
    numbers: list[int] = []
    for name in fields:
        value = getattr(row, name)
        if name == "move_values":
            numbers.extend(_words(value))
        else:
            codes = _CODES.get(name)
            numbers.append(value if codes is None else codes[value])
    return numbers


def checksum(start: int, numbers: Iterable[int]) -> int:
    """The checksum of one row's integers, in plain Python."""
    h = start
    for number in numbers:
        h ^= number & _MASK
        h ^= h >> 30
        h = (h * _C1) & _MASK
        h ^= h >> 27
        h = (h * _C2) & _MASK
        h ^= h >> 31
    return _to_int32(h)


def checksums(start: int, columns: Sequence[npt.NDArray[Any]]) -> npt.NDArray[np.int32]:
    """The checksums of many rows at once: `columns` as integer arrays, one per folded integer."""
    import numpy as np

    count = len(columns[0]) if columns else 0
    h = np.full(count, start, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for column in columns:
            values = np.asarray(column)
            h ^= values if values.dtype == np.uint64 else values.astype(np.int64).view(np.uint64)
            h ^= h >> np.uint64(30)
            h *= np.uint64(_C1)
            h ^= h >> np.uint64(27)
            h *= np.uint64(_C2)
            h ^= h >> np.uint64(31)
    result: npt.NDArray[np.int32] = (h >> np.uint64(32)).astype(np.uint32).view(np.int32)
    return result


def value_words(values: npt.NDArray[np.uint8]) -> list[npt.NDArray[Any]]:
    """`move_values` of many rows (a rows x cells byte matrix) as the words `checksum` folds."""
    import numpy as np

    padded = np.zeros((len(values), 8 * _VALUE_WORDS), np.uint8)
    padded[:, : values.shape[1]] = values
    words = padded.view("<u8")
    return [words[:, i] for i in range(_VALUE_WORDS)]


def folded_columns(columns: Mapping[str, npt.NDArray[Any]], fields: Sequence[str]) -> list[npt.NDArray[Any]]:
    """What `checksums` folds for `fields`, in order, from integer columns by name: text columns
    as their codes (`STATUS_CODES`, ...), `move_values` a rows x cells byte matrix."""
    folded: list[npt.NDArray[Any]] = []
    for name in fields:
        if name == "move_values":
            folded.extend(value_words(columns[name]))
        else:
            folded.append(columns[name])
    return folded


def row_columns(rows: Sequence[Any], fields: Sequence[str], cells: int) -> list[npt.NDArray[Any]]:
    """The folded integers of many decoded rows (named tuples), as the columns `checksums` takes."""
    import numpy as np

    count = len(rows)
    position = {name: index for index, name in enumerate(rows[0]._fields)} if rows else {}
    columns: dict[str, npt.NDArray[Any]] = {}
    for name in fields:
        values = map(itemgetter(position.get(name, 0)), rows)
        if name == "move_values":
            columns[name] = np.frombuffer(b"".join(map(bytes, values)), np.uint8).reshape(count, cells)
        else:
            codes = _CODES.get(name)
            columns[name] = np.fromiter(values if codes is None else map(codes.__getitem__, values), np.int64, count)
    return folded_columns(columns, fields)


_MANY: Final = 2_000
"""From this many rows, checking in numpy beats plain Python (and pays for importing it)."""


def rows_failing(rows: Sequence[Any], fields: Sequence[str], stored: str, start: int, cells: int) -> list[int]:
    """Indices of the decoded `rows` whose `stored` checksum column is not the checksum of `fields`."""
    if len(rows) < _MANY:
        return [i for i, row in enumerate(rows) if getattr(row, stored) != checksum(start, field_numbers(row, fields))]
    import numpy as np

    found = np.fromiter(map(attrgetter(stored), rows), np.int64, len(rows))
    expected = checksums(start, row_columns(rows, fields, cells))
    return [int(i) for i in np.flatnonzero(found != expected)]


def blob_checksum(game_name: str, part: str, *fields: str | int | bytes) -> int:
    """The checksum of a node list (name, size, encoded keys) or of the meta: BLAKE2b, 32 bits."""
    digest = hashlib.blake2b(seed(game_name, part).to_bytes(8, "little"), digest_size=4)
    for field in fields:
        data = field if isinstance(field, bytes) else str(field).encode()
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return int.from_bytes(digest.digest(), "little", signed=True)


META_CHECK_KEY: Final = "checksum"


def meta_checksum(entries: Mapping[str, str]) -> int:
    """The checksum of the meta table: every entry's stored JSON text but its own, by key."""
    fields = [part for key in sorted(entries) if key != META_CHECK_KEY for part in (key, entries[key])]
    return blob_checksum("", "meta", json.dumps(fields))
