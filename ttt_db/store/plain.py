"""The plain tables: the solution as rows that sqlite3, pandas or DuckDB read without ttt-db.

`ttt_positions` holds a row per symmetry class, at its canonical board (o first): its depth, who
moves, how it stands, its score and value, its remoteness, the boards in its class, and its best
moves, fastest best moves and every move's value and remoteness (lists msgpack-packed).
`ttt_node_lists` holds the named lists of boards (`ttt_db.store.core.NODE_LISTS`) a level at a
time, as msgpack-packed base-3 keys (`Game.key`). Both are derived here from a core's levels: by
the build from the levels it solved, by `verify` from the stored ones, which holds every stored
row to its derived one. ttt-db's own answers come from the core, never from these rows; the meta
entry `PLAIN_KEY` holds each table's row count and hash, so the content digest covers them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import msgpack

from ttt_db.errors import BuildRefusedError, DatabaseDamagedError
from ttt_db.game.definition import Game
from ttt_db.position import Position
from ttt_db.ranked.blocks import blocks, level_keys
from ttt_db.ranked.step import Level, LevelCounts
from ttt_db.ranked.tables import RankedTables
from ttt_db.ranked.walk import Step
from ttt_db.store.core import NODE_LISTS, class_positions, list_kind
from ttt_db.store.extras import EXTRAS_MAX_CELLS
from ttt_db.store.reader import Reader
from ttt_db.store.tables import NODE_LIST_COLUMNS, NODE_LISTS_TABLE, PLAIN_KEY, POSITION_COLUMNS, POSITIONS

TABLES_DEFAULT_CELLS: Final = 12
"""The largest game whose build writes the plain tables unless told not to."""
TABLES_MAX_CELLS: Final = EXTRAS_MAX_CELLS
"""The largest game whose build writes them when asked (`build --tables`): its levels are held."""

Row = tuple[Any, ...]


def writes_tables(game: Game, asked: bool | None) -> bool:
    """Whether a build of `game` writes the plain tables: as asked, else (None) up to
    TABLES_DEFAULT_CELLS cells; BuildRefusedError when asked for a game over TABLES_MAX_CELLS."""
    if asked is None:
        return game.cells <= TABLES_DEFAULT_CELLS
    if asked and game.cells > TABLES_MAX_CELLS:
        raise BuildRefusedError(
            f"{game} has {game.cells} cells; the plain tables are written for games of at most {TABLES_MAX_CELLS} "
            "(their rows would run to millions and more): build it without --tables, and read it through "
            "ttt-db (`export`, `best-moves -`)",
            [],
        )
    return asked


def pack(value: Any) -> bytes:
    packed: bytes = msgpack.packb(value)
    return packed


def position_row(key: int, position: Position) -> Row:
    """A class's row of `ttt_positions` (`POSITION_COLUMNS`) from its canonical board's position."""
    return (
        key,
        position.cells,
        position.depth,
        position.to_move,
        position.status,
        position.score,
        position.value,
        position.remoteness,
        position.orbit,
        pack(list(position.best_moves)),
        pack(list(position.best_moves_shortest)),
        pack([[move.move, move.value, move.remoteness] for move in position.moves]),
    )


def position_rows(tables: RankedTables, step: Step) -> list[Row]:
    """The rows of a walked level's classes, by key, each at its canonical board."""
    rows: list[Row] = []
    for block in blocks(tables, step, canonical=True, moves=step.below is not None):
        where = block.select(0)
        if where:
            rows += [position_row(tables.game.key(p.cells), p) for p in class_positions(tables, block, where)]
    rows.sort(key=lambda row: row[0])
    return rows


def node_list_rows(tables: RankedTables, step: Step) -> list[Row]:
    """The rows of `ttt_node_lists` (`NODE_LIST_COLUMNS`) of a walked level: each named list's
    boards at that depth, as sorted keys, the lists by name; none for a list with no board there."""
    rows = []
    for name in sorted(NODE_LISTS):
        kind, canonical = list_kind(name)
        keys = level_keys(tables, step, kind, canonical=canonical)
        if keys:
            rows.append((name, step.depth, pack(keys)))
    return rows


def held_steps(levels: Sequence[Level], counts: Sequence[LevelCounts]) -> Iterator[Step]:
    """Every level of a core held whole in memory (a build's, or the one `verify` walked), as the
    walker's steps, the empty board first."""
    last = len(levels) - 1
    for depth, level in enumerate(levels):
        yield Step(level, levels[depth + 1] if depth < last else None, counts[depth])


def _plain(value: Any) -> Any:
    # a server driver may hand blobs back as memoryview
    return bytes(value) if isinstance(value, memoryview) else value


ORDER: Final = {POSITIONS: "depth, key", NODE_LISTS_TABLE: "depth, name"}
"""Each plain table's order as written, hashed and held to the core."""


class TableHash:
    """A plain table's rows counted and hashed in its order (`ORDER`)."""

    def __init__(self, table: str) -> None:
        self.table = table
        self.rows = 0
        self._hash = hashlib.blake2b(f"ttt-db {table}".encode(), digest_size=16)

    def hashed(self, rows: Iterable[Row]) -> Iterator[Row]:
        for row in rows:
            self.rows += 1
            self._hash.update(pack([_plain(value) for value in row]))
            yield row

    def entry(self) -> dict[str, Any]:
        return {"rows": self.rows, "hash": self._hash.hexdigest()}


@dataclass(frozen=True)
class PlainLevels:
    """What the plain tables are derived from: a core's levels held whole and their counts."""

    tables: RankedTables
    levels: Sequence[Level]
    counts: Sequence[LevelCounts]

    def rows(self) -> Iterator[tuple[list[Row], list[Row]]]:
        """Each level's rows of `ttt_positions` and of `ttt_node_lists`, the empty board first."""
        for step in held_steps(self.levels, self.counts):
            yield position_rows(self.tables, step), node_list_rows(self.tables, step)


def stored_rows(reader: Reader, table: str) -> Iterator[Row]:
    """A plain table's stored rows in its order, blobs as bytes."""
    columns = POSITION_COLUMNS if table == POSITIONS else NODE_LIST_COLUMNS
    for row in reader.stream(f"SELECT {', '.join(columns)} FROM {table} ORDER BY {ORDER[table]}"):
        yield tuple(_plain(value) for value in row)


def held_to_core(stored: Iterable[Row], derived: Iterable[Row], table: str, fault: Callable[[str], None]) -> TableHash:
    """The stored rows of a plain table merged with those derived from the core, both in the
    table's order: every row that differs, is missing or is extra goes to `fault`; the stored
    rows' count and hash."""
    depth_at = 2 if table == POSITIONS else 1

    def order(row: Row) -> tuple[Any, Any]:
        return row[depth_at], row[0]

    counted = TableHash(table)
    found, expected = iter(counted.hashed(stored)), iter(derived)
    a, b = next(found, None), next(expected, None)
    while a is not None or b is not None:
        if b is None or (a is not None and order(a) < order(b)):
            fault(row_fault(table, a, None))
            a = next(found, None)
        elif a is None or order(b) < order(a):
            fault(row_fault(table, None, b))
            b = next(expected, None)
        else:
            if a != b:
                fault(row_fault(table, a, b))
            a, b = next(found, None), next(expected, None)
    return counted


def row_fault(table: str, found: Row | None, expected: Row | None) -> str:
    """What `verify` says of a stored row that is not the derived one (`found` None: missing;
    `expected` None: a row no class has)."""
    columns = POSITION_COLUMNS if table == POSITIONS else NODE_LIST_COLUMNS
    names = 2  # key and board, or name and depth
    if found is None:
        assert expected is not None
        return f"table {table}: no row for {dict(zip(columns[:names], expected[:names], strict=True))}"
    where = dict(zip(columns[:names], found[:names], strict=True))
    if expected is None:
        return f"table {table}: a row no class has, {where}"
    differing = [
        f"{column} {_shown(a)} where the core gives {_shown(b)}"
        for column, a, b in zip(columns, found, expected, strict=True)
        if _plain(a) != b
    ]
    return f"table {table}, {where}: {'; '.join(differing)}"


def _shown(value: Any) -> str:
    value = _plain(value)
    if isinstance(value, bytes):
        try:
            return repr(msgpack.unpackb(value))
        except Exception:  # noqa: BLE001 - a damaged blob is shown as bytes
            return repr(value[:32])
    return repr(value)


def altered_tables(reader: Reader, recorded: Mapping[str, Any]) -> list[str]:
    """The plain tables whose stored rows are not those their build counted and hashed (`recorded`:
    the meta entry PLAIN_KEY, covered by the content digest), by name."""
    altered = []
    for table, entry in sorted(recorded.items()):
        counted = TableHash(table)
        for _ in counted.hashed(stored_rows(reader, table)):
            pass
        if counted.entry() != entry:
            altered.append(table)
    return altered


def refuse_altered(reader: Reader, recorded: Mapping[str, Any], where: str) -> None:
    """DatabaseDamagedError where a plain table's rows are not those its build hashed
    (`altered_tables`): the file's digest covers the hashes, so its rows are not the solution's."""
    altered = altered_tables(reader, recorded)
    if altered:
        raise DatabaseDamagedError(
            f"plain table {', '.join(altered)} not as its build wrote it (rows or hash differ from meta "
            f"{PLAIN_KEY}, which the digest covers; `ttt-db verify` names the rows)",
            where,
        )
