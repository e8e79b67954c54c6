"""Read access to a built solution database.

    with open_database() as database:
        database.lookup("ox..x....").best_moves  # raises on an impossible board
        database.get("xxx......")               # None instead of raising

A database is the game's ranked core (`ttt_db.store.core`): a board's value and remoteness are
its class representative's code, its moves' values its children's; small games keep each class's
random-play odds and paths too. Positions are derived once and cached, so a warm handle answers
from memory; the named lists and the best-moves table are derived from the core in arrays.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace
from itertools import islice
from math import factorial
from types import MappingProxyType, TracebackType
from typing import TYPE_CHECKING, Any, Final, TypeVar, cast

from ttt_db.errors import (
    DatabaseDamagedError,
    DatabaseError,
    DatabaseMissingError,
    DigestMismatchError,
    ImpossibleBoardError,
    InputError,
    InvalidBoardError,
    InvalidDepthError,
    NotStoredError,
    PositionNotFoundError,
    ReadFailedError,
    shortened,
)
from ttt_db.game.board import Board, plain_boards
from ttt_db.game.definition import DEFAULT_GAME, Game, boards_of_keys
from ttt_db.game.rules import VALUES, Mark, Value
from ttt_db.game.symmetry import canonical_transform, images_with_moves, untransform_moves
from ttt_db.json_text import compact_json, read_json
from ttt_db.position import MoveAnalysis, Playout, Position
from ttt_db.ranked.slots import representative
from ttt_db.store import decode as stored
from ttt_db.store.checksum import DEPTH_FIELDS, META_CHECK_KEY, checksum, depth_numbers, meta_checksum, seed
from ttt_db.store.core import NODE_LISTS, CoreReader
from ttt_db.store.digest import DIGEST_KEY, HASHES_KEY, content_digest
from ttt_db.store.extras import EXTRAS_MAX_CELLS, keeps_extras
from ttt_db.store.figures import DepthFigures
from ttt_db.store.location import DatabaseLocation, resolve_location
from ttt_db.store.pins import Pin, file_state, pin_for, remember_rows_proven, rows_proven
from ttt_db.store.reader import EngineReader, Reader, SqliteFileReader
from ttt_db.store.tables import CORE, DEPTH_COUNTS, META, PLAIN_KEY, POSITIONS, SCHEMA_VERSION

if TYPE_CHECKING:
    from sqlalchemy import Engine


T = TypeVar("T")
K = TypeVar("K")
V = TypeVar("V")
REQUIRED_META = (
    "schema_version",
    "rules",
    "package_version",
    "built_at",
    "figures",
    "format",
    HASHES_KEY,
    DIGEST_KEY,
    META_CHECK_KEY,
)


def make_engine(location: DatabaseLocation) -> Engine:
    """An engine for the location; DatabaseError for an unknown dialect or a missing driver.
    A file path goes through SQLAlchemy's URL API, so `?`, `#`, `%` and spaces in it are kept."""
    from sqlalchemy import URL, create_engine
    from sqlalchemy.exc import SQLAlchemyError

    if location.path is not None and location.path.is_dir():
        raise DatabaseError(f"{location} is a directory; give the database file's path")
    try:
        if _is_plain_file(location):
            return create_engine(URL.create("sqlite", database=str(location.path)))
        return create_engine(location.url)
    except ImportError as error:
        raise DatabaseError(f"the database driver for {location.url!r} is not installed ({error})") from None
    except SQLAlchemyError as error:
        raise DatabaseError(f"cannot use {location.url!r}: {error}") from None


def database_exists(location: DatabaseLocation) -> bool:
    """True when the location holds a database with the meta table (a file must exist first);
    DatabaseError when a server cannot be reached, so that nothing sets out to build into it."""
    if location.path is not None and not location.path.is_dir():
        if location.path.is_file() and not os.access(location.path, os.R_OK):
            raise DatabaseError(f"cannot read {location}: permission denied")
        return location.path.is_file()
    from sqlalchemy import inspect
    from sqlalchemy.exc import SQLAlchemyError

    engine = make_engine(location)
    try:
        return inspect(engine).has_table(META)
    except SQLAlchemyError as error:  # refused, unreachable, bad credentials: nothing to build into
        raise DatabaseError(f"cannot reach {location}: {str(error).splitlines()[0]}") from None
    finally:
        engine.dispose()


def _is_plain_file(location: DatabaseLocation) -> bool:
    return location.path is not None and location.url == f"sqlite:///{location.path}"


def make_reader(location: DatabaseLocation) -> Reader:
    """sqlite3 for a plain local file (no SQLAlchemy import), SQLAlchemy for any other URL."""
    if location.path is not None and location.path.is_dir():
        raise DatabaseError(f"{location} is a directory; give the database file's path")
    if _is_plain_file(location):
        assert location.path is not None
        return SqliteFileReader(location.path)
    return EngineReader(make_engine(location))


_LIST_FIGURES: Final = {"all": "positions", "canonical": "canonical_positions"}
"""The build's figure each named list is held to, where it is not the list's own name."""
_SMALL_TABLE_ROWS: Final = 50_000
"""Up to this many canonical positions in play, an AI reads the whole best-moves table at once."""
REMEMBERED_ANSWERS: Final = 2_000_000
"""Boards whose best moves a best-moves table remembers once asked (`BestMovesTable`)."""
EVERY_IMAGE_FROM_ROWS: Final = 65_536
"""Up to this many boards in play, a best-moves table read from the plain rows holds every board's
moves from the start (a small game's check asks most of them)."""
ARRAYS_FROM: Final = 32
"""From this many boards not yet derived, a batch of a compiled game's boards is derived in arrays."""
GROUP_BOARDS: Final = 8192
"""Boards of a batch derived together (the arrays hold their children's children)."""
CACHED_BOARDS: Final = 200_000
"""Positions a handle remembers per cache (every position of a small game); a full cache starts
again empty, so a long-running server on a large game holds a bounded amount."""


def _remember(cache: dict[K, V], key: K, value: V) -> V:
    """`cache[key] = value`, the cache emptied first when it is full."""
    if len(cache) >= CACHED_BOARDS:
        cache.clear()
    cache[key] = value
    return value


class SolutionDatabase:
    """An open solution database. Use `open_database()` to get one.

    Safe to share between threads: every query takes its own pooled connection, and the caches
    only ever gain entries that are equal whichever thread adds them. Everything read from the
    file is checked as it is read (each chunk against its checksum, hash and size, the meta
    entries, the depth counts, and with a `pin` the content digest); damage raises
    `DatabaseDamagedError`.
    """

    def __init__(self, reader: Reader, location: DatabaseLocation, pin: Pin | None = None) -> None:
        self.reader = reader
        self.location = location
        self.pin = pin
        self._stored: dict[str, Position] = {}  # positions (o first) by board, any orientation
        self._arrays_ready = False  # the compiled kernels and their tables are loaded: one board is derived in arrays
        self._game: Game | None = None
        self._answers: dict[tuple[str, Mark], Position] = {}  # by normalised cells and first player
        self._by_plain_text: dict[str, Position] = {}  # normalised cells, first player inferred
        self._meta: dict[str, Any] | None = None
        self._lists: dict[str, list[int]] = {}  # node lists derived from the core, by name
        self._best_moves_tables: dict[bool, BestMovesTable] = {}
        self._engine: Engine | None = None
        self._core: CoreReader | None = None

    def __enter__(self) -> SolutionDatabase:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        self.reader.close()
        if self._engine is not None:
            self._engine.dispose()

    @property
    def engine(self) -> Engine:
        """An SQLAlchemy engine on the same database, for code that writes or inspects it."""
        if isinstance(self.reader, EngineReader):
            return self.reader.engine
        if self._engine is None:
            self._engine = make_engine(self.location)
        return self._engine

    # --- facts of the build -------------------------------------------------------------

    def meta(self) -> dict[str, Any]:
        """Every meta entry, JSON-decoded (a fresh copy each call), checked against the meta's checksum."""
        return copy.deepcopy(self._checked_meta())

    def _checked_meta(self) -> dict[str, Any]:
        """The meta entries, read and checked once per handle (and held to the pin): every read of
        stored content (positions, best moves, node lists, every chunk's hash) begins here."""
        if self._meta is None:
            entries = self._meta_entries()
            where = f"table {META}"
            decoded = {}
            for key, value in entries.items():
                try:
                    decoded[key] = json.loads(value)
                except (TypeError, ValueError):
                    raise DatabaseDamagedError(f"meta entry {key!r} is not JSON", where) from None
            stored.require_keys(decoded, REQUIRED_META, where)
            if decoded[META_CHECK_KEY] != meta_checksum(entries):
                raise DatabaseDamagedError("the meta entries do not match their checksum", where)
            if not isinstance(decoded["figures"], dict) or not isinstance(decoded["rules"], dict):
                raise DatabaseDamagedError("meta entries figures and rules are not objects", where)
            if self.pin is not None:
                found = self._digest_of(entries)
                if found != self.pin.digest:
                    raise DigestMismatchError(
                        str(self.location), found, self.pin.digest, self.pin.source, self.pin.remedy
                    )
                self._hold_plain_rows(decoded, found)
            self._meta = decoded
        return self._meta

    @property
    def plain_rows_held(self) -> bool:
        """Whether this handle may answer from the plain tables' rows: the file has them and the
        read is pinned, so they were held to the hashes its digest covers at open."""
        return self.pin is not None and PLAIN_KEY in self._checked_meta()

    @property
    def reads_plain_rows(self) -> bool:
        """Whether the best-moves table and the strong check read the plain tables' rows
        (`ttt_db.store.class_rows`) rather than walk the core's levels (and the weak check of the
        database's own AIs is then the search over those moves): the rows are held
        (`plain_rows_held`) and the game is so small that its kernels run interpreted."""
        from ttt_db.ranked.backend import runs_interpreted  # looked up at each call: tests force it
        from ttt_db.ranked.slots import level_sizes

        return self.plain_rows_held and runs_interpreted(sum(level_sizes(self.game.cells)))

    def hold_plain_rows(self) -> None:
        """Hold the plain tables' rows to the hashes their build recorded (meta `plain_tables`,
        covered by the content digest): DatabaseDamagedError names a table whose rows differ. A
        pinned handle has done so at open, once for each state of the file (`ttt_db.store.pins`)."""
        from ttt_db.store.plain import refuse_altered

        decoded = self._checked_meta()
        if self.pin is None:
            refuse_altered(self.reader, decoded.get(PLAIN_KEY) or {}, str(self.location))

    def _hold_plain_rows(self, decoded: Mapping[str, Any], digest: str) -> None:
        recorded = decoded.get(PLAIN_KEY)
        if not recorded or rows_proven(self.location, digest):
            return
        from ttt_db.store.plain import refuse_altered  # its import is paid only where rows are read

        state = None if self.location.path is None else file_state(self.location.path)
        refuse_altered(self.reader, recorded, str(self.location))
        remember_rows_proven(self.location, digest, state)

    def _meta_entries(self) -> dict[str, Any]:
        return {row.key: row.value for row in self.reader.rows(f"SELECT key, value FROM {META}")}

    def _digest_of(self, entries: Mapping[str, Any]) -> str:
        rows = self.reader.rows(f"SELECT {', '.join(DEPTH_FIELDS)} FROM {DEPTH_COUNTS} ORDER BY depth")
        return content_digest(entries, rows)

    @property
    def game(self) -> Game:
        """The game this database solves, from its meta `rules` alone, so that `verify` can name
        the damage of a database whose other meta entries are damaged. Every row's checksum is
        seeded with this game (`ttt_db.store.checksum`): rules rewritten to name another game are
        refused at the first row read, and every meta entry at the first `meta()`."""
        if self._game is None:
            found = self.reader.rows(f"SELECT value FROM {META} WHERE key = :key", {"key": "rules"})
            text = found[0].value if found else None
            try:
                rules = json.loads(text) if text is not None else {}
            except (TypeError, ValueError):  # not JSON, or not text at all
                rules = text
            if not isinstance(rules, dict):
                raise DatabaseDamagedError(f"meta rules {rules!r} are not an object", f"table {META}")
            try:
                self._game = Game.parse(str(rules.get("game", "")))
            except InputError:
                raise DatabaseDamagedError(f"meta rules {rules!r} name no game", f"table {META}") from None
        return self._game

    @property
    def core(self) -> CoreReader:
        """The ranked core: every game's one source of value and remoteness. Its chunks carry
        checksums seeded with the game, so it needs no other meta entry than the rules."""
        if self._core is None:
            self._core = CoreReader(self.reader, self.game, self._checked_meta)
        return self._core

    @property
    def has_extras(self) -> bool:
        """Whether random-play odds and paths are kept beside the core (games of at most
        `EXTRAS_MAX_CELLS` cells), or the core alone: decided by the game."""
        return keeps_extras(self.game)

    def _require_extras(self, what: str) -> None:
        if not self.has_extras:
            raise NotStoredError(
                f"the {self.game} database keeps the ranked core alone (over {EXTRAS_MAX_CELLS} cells): "
                f"it gives no {what}"
            )

    def depth_figures(self) -> list[DepthFigures]:
        rows = self.reader.rows(f"SELECT {', '.join(DEPTH_FIELDS)}, checksum FROM {DEPTH_COUNTS} ORDER BY depth")
        where = f"table {DEPTH_COUNTS}"
        names = ("depth", "tree nodes", "positions", "canonical positions")
        counted = self.has_extras
        figures = [
            [
                None
                if field == "tree_nodes" and not counted and getattr(row, field) is None
                else stored.whole_number(getattr(row, field), name, where, 0, 10**19)
                for field, name in zip(DEPTH_FIELDS, names, strict=True)
            ]
            for row in rows
        ]
        start = seed(self.game.name, "depth")
        for row, counts in zip(rows, figures, strict=True):
            if row.checksum != checksum(start, depth_numbers(counts)):
                raise DatabaseDamagedError(f"the counts at depth {counts[0]} do not match their checksum", where)
        depths = [counts[0] for counts in figures]
        if (
            depths != list(range(len(depths)))
            or sum(counts[2] or 0 for counts in figures) != self.meta()["figures"]["positions"]
        ):
            raise DatabaseDamagedError(
                f"the depths {depths} do not run from 0 without a gap to the build's "
                f"{self.meta()['figures']['positions']:,} positions",
                where,
            )
        return [DepthFigures(*counts) for counts in figures]  # type: ignore[arg-type]

    def info_document(self) -> dict[str, Any]:
        """What `ttt-db info --json` prints: where the database is, its size, every meta entry, the
        content digest the file has now (`content_digest`: its `content_sha256` entry is what the
        build recorded), and the figures per depth."""
        path = self.location.path
        return {
            "location": str(self.location),
            "size_bytes": path.stat().st_size if path is not None else None,
            **self.meta(),
            "content_digest": self.content_digest(),
            "depths": [row.to_dict() for row in self.depth_figures()],
        }

    @property
    def empty_board_value(self) -> Value:
        """What o, moving first, gets from the empty board with best play (a draw on 3x3): the
        build's figure, read from the meta (held to its checksum) without a lookup."""
        figure = self._checked_meta()["figures"].get("empty_board")
        value = figure.get("value") if isinstance(figure, dict) else None
        if value not in VALUES:
            raise DatabaseDamagedError(f"the empty board's value is {value!r}", f"table {META}")
        return cast(Value, value)

    def node_list(self, name: str) -> list[str]:
        """A named list of boards (`all`, `canonical`, `playing`, `decision`, ...: `NODE_LISTS`),
        in (depth, board) order, derived from the core."""
        return boards_of_keys(self.node_list_keys(name), self.game)

    def node_list_keys(self, name: str) -> list[int]:
        """A named list as board keys, in (depth, key) order; derived from the core once per
        handle, and held to the build's count of it."""
        found = self._lists.get(name)
        if found is None:
            self._require_extras(f"node list {name!r}")
            found = self.core.node_list_keys(name)
            expected = self._checked_meta()["figures"].get(_LIST_FIGURES.get(name, name))
            if len(found) != expected:
                raise DatabaseDamagedError(
                    f"node list {name!r} holds {len(found):,} boards, the build counted {expected!r}", f"table {CORE}"
                )
            self._lists[name] = found
        return list(found)

    def node_list_names(self) -> list[str]:
        return list(NODE_LISTS) if self.has_extras else []

    def integrity_problems(self) -> list[str]:
        """What the engine's own integrity check reports (SQLite's `PRAGMA integrity_check`;
        other engines have none to run): empty when the file is sound."""
        if self.reader.dialect != "sqlite":
            return []
        lines = [str(row[0]) for row in self.reader.rows("PRAGMA integrity_check")]
        return [] if lines == ["ok"] else lines

    def content_digest(self) -> str:
        """The content digest (`ttt_db.store.digest`) recomputed from the stored meta entries and
        depth counts, as the build computed its `content_sha256` entry: what a pin is held to."""
        return self._digest_of(self._meta_entries())

    # --- positions -----------------------------------------------------------------------

    def lookup(self, board: str | Board, *, first: Mark | None = None) -> Position:
        """The solved position, in the board's own marks. `first` says who moved first when
        the counts are equal (o by default). Raises `InvalidBoardError` (a `ValueError`) for
        malformed or impossible boards, `TypeError` for anything but a string or a Board, and
        `DatabaseDamagedError` when the database
        cannot give the right answer."""
        if type(board) is str and first is None:
            found = self._by_plain_text.get(board)
            if found is not None:
                return found
            parsed = Board.parse(board, game=self.game)
        elif isinstance(board, Board):
            if board.game != self.game:
                raise InvalidBoardError(board.cells, f"it is a {board.game} board; this database solves {self.game}")
            if first is not None and first != board.first:
                raise InvalidBoardError(board.cells, f"it has {board.first} first, not {first}")
            parsed = board
        elif isinstance(board, str):
            parsed = Board.parse(board, first, self.game)
        else:
            raise TypeError(f"a board is a string or a Board, not {type(board).__name__}")
        key = (parsed.cells, parsed.first)
        position = self._answers.get(key)
        if position is None:
            position = _remember(self._answers, key, self._position(parsed))
        if first is None and board == parsed.cells:  # already in normal form: the fast path's key
            _remember(self._by_plain_text, parsed.cells, position)
        return position

    def lookup_many(
        self, boards: Iterable[str | Board], *, first: Mark | None = None
    ) -> Iterator[Position | InvalidBoardError]:
        """Each board's position, in order, or the `InvalidBoardError` it is refused with (a bad
        board does not stop the rest); `DatabaseDamagedError` still raises. Many boards of a large
        game are derived together, in arrays (`ttt_db.store.lookups`)."""
        for group in _groups(boards):
            parsed = (self._parsed(board, first) for board in group)
            self._derive_together([board.stored_cells for board in parsed if board is not None])
            for board in group:
                try:
                    yield self.lookup(board, first=first)
                except InvalidBoardError as error:
                    yield error

    def position_documents(self, items: Iterable[object], *, first: Mark | None = None) -> Iterator[dict[str, Any]]:
        """Each item's `best-moves --json` document, in order: an item is a board's text, a record
        `{"board": ..., "first": "o" or "x"}` (its `first` over the one given here) or such a record's
        JSON text. A bad item is answered `{"input": ..., "error": ...}` (the input as given) and the
        rest are answered all the same; `DatabaseDamagedError` still raises. Read from
        `position_lines`, which a batch's printer and the server use as it is."""
        for line in self.position_lines(items, first=first):
            yield read_json(line)

    def position_lines(self, items: Iterable[object], *, first: Mark | None = None) -> Iterator[bytes]:
        """Each item's `position_documents` document as compact JSON (`compact_json`'s bytes, no
        newline). Many boards of a large game (o first) are derived together, in arrays, and their
        documents written without making a Position (`ttt_db.store.lookups.documents_in_arrays`)."""
        for group in _groups(items):
            plain = plain_boards(group, first, self.game)  # the usual boards, checked together
            boards = [board or self._batch_board(item, first) for item, board in zip(group, plain, strict=True)]
            parsed = [board for board in boards if isinstance(board, Board)]
            swapped = [board.stored_cells for board in parsed if board.swapped]
            self._derive_together(swapped)  # told swapped: answered one at a time from the positions
            written = self._written_together([board for board in parsed if not board.swapped])
            for item, board in zip(group, boards, strict=True):
                try:
                    if isinstance(board, InputError):
                        raise board
                    found = None if board.swapped else written.get(board.cells)
                    yield found if found is not None else compact_json(self._position(board).to_document())
                except InputError as error:
                    shown = shortened(item if isinstance(item, str) else _shown(item))
                    yield compact_json({"input": shown, "error": str(error)})

    def _batch_board(self, item: object, first: Mark | None) -> Board | InputError:
        """A batch's item as a board of this game, or the InputError that says why it is none."""
        try:
            record = _batch_record(item)
            mark = record.get("first", first)
            if mark not in (None, "o", "x"):
                raise InputError(str(mark), "first is o or x")
            return Board.parse(record["board"], mark, self.game)
        except InputError as error:
            return error

    def _written_together(self, boards: list[Board]) -> dict[str, bytes]:
        """The documents (compact JSON) of many boards (o first) of a game whose kernels are
        compiled, derived and written in arrays, by board; none for a few boards, or a board the
        arrays leave (its lookup then says what is wrong)."""
        wanted = list(dict.fromkeys(board.cells for board in boards))
        if len(wanted) < ARRAYS_FROM or not self.core.tables.backend.compiled:
            return {}
        from ttt_db.store.lookups import documents_in_arrays

        written = documents_in_arrays(self.core, wanted, extras=self.has_extras)
        self._arrays_ready = True
        return {cells: text for cells, text in zip(wanted, written, strict=True) if text is not None}

    def _parsed(self, board: str | Board, first: Mark | None) -> Board | None:
        """The board as `lookup` will take it, or None where it will refuse it (it says why)."""
        if isinstance(board, Board):
            return board if board.game == self.game else None
        try:
            return Board.parse(board, first, self.game) if isinstance(board, str) else None
        except InputError:
            return None

    def prepare_arrays(self) -> None:
        """Load the compiled kernels and make their tables now, on a game whose kernels are
        compiled, so that every later lookup derives its board in arrays as a batch is (a server
        does this as it starts: it costs a command's start-up once; a batch does it by itself)."""
        if not self.core.tables.backend.compiled:
            return
        from ttt_db.store.lookups import positions_in_arrays

        try:
            positions_in_arrays(self.core, [self.game.empty_board], extras=self.has_extras)
        except DatabaseDamagedError:
            return  # each lookup then goes its one-board way, and names the damage it meets
        self._arrays_ready = True

    def _derive_together(self, boards: list[str]) -> None:
        """The positions of many boards (o first) of a game whose kernels are compiled, derived in
        arrays into the cache `lookup` reads (a board the arrays leave is derived alone when it is
        looked up)."""
        wanted = [cells for cells in dict.fromkeys(boards) if cells not in self._stored]
        if len(wanted) < ARRAYS_FROM or not self.core.tables.backend.compiled:
            return
        from ttt_db.store.lookups import positions_in_arrays

        if len(self._stored) + len(wanted) > CACHED_BOARDS:
            self._stored.clear()
        for cells, position in zip(wanted, positions_in_arrays(self.core, wanted, extras=self.has_extras), strict=True):
            if position is not None:
                self._stored[cells] = position
        self._arrays_ready = True

    def get(self, board: str | Board, default: T | None = None, *, first: Mark | None = None) -> Position | T | None:
        """Like `lookup`, but `default` for an impossible board. Malformed text still raises
        `InvalidBoardError`, and a damaged database `DatabaseDamagedError`."""
        try:
            return self.lookup(board, first=first)
        except ImpossibleBoardError:
            return default

    def best_moves(self, board: str | Board, *, shortest: bool = False) -> tuple[int, ...]:
        position = self.lookup(board)
        return position.best_moves_shortest if shortest else position.best_moves

    def best_moves_of(self, board: str, *, shortest: bool = False) -> tuple[int, ...]:
        """Best moves of a board in play (o first), for an AI that reads the database: from the
        whole best-moves table on a small game or once it has been read (a check reads it), else
        from the board's own row, so a few moves on 4x4 do not read 1.1 million rows first."""
        table = self._best_moves_tables.get(shortest)
        if table is None and self._small_game():
            table = self.best_moves_table(shortest=shortest)
        if table is not None:
            try:
                return table[board]
            except KeyError:  # not a board in play with o first (x moved first, malformed, impossible)
                pass  # the lookup answers it, or says what is wrong with it
        return self.best_moves(board, shortest=shortest)

    def every_best_moves(self, *, shortest: bool = False) -> Mapping[str, tuple[int, ...]] | None:
        """Board (o first, any orientation) -> best moves of every board in play in one mapping,
        where a small game's table holds them so (`BestMovesTable.every_answer`); else None."""
        if not self._small_game():
            return None
        return self.best_moves_table(shortest=shortest).every_answer()

    def _small_game(self) -> bool:
        return self.has_extras and int(self._checked_meta()["figures"]["playing_canonical"]) <= _SMALL_TABLE_ROWS

    def analyse(self, board: str | Board) -> tuple[MoveAnalysis, ...]:
        """Every legal move with its value for the mover and the remoteness after it."""
        return self.lookup(board).moves

    def stored_positions(self, boards: Iterable[str]) -> list[Position]:
        """Positions (o first) of boards in any orientation, in the order given, each derived
        from the core (its value and its moves' from the codes of its children's classes) with,
        where kept, its class's odds and paths; remembered per board."""
        boards = list(boards)
        self._derive_together(boards)
        return [self._stored_position(board) for board in boards]

    def _stored_position(self, board: str) -> Position:
        return self._stored.get(board) or _remember(self._stored, board, self._derived(board))

    def _derived(self, board: str) -> Position:
        game = self.game
        if self._arrays_ready:  # in arrays, as a batch is: its ranks in one kernel call
            from ttt_db.store.lookups import positions_in_arrays

            derived = positions_in_arrays(self.core, [board], extras=self.has_extras)[0]
            if derived is not None:
                return derived
        position = Position.from_core(board, game, self.core.value_of)
        if not self.has_extras:
            return position
        depth, slot, _ = representative(board, game)
        o_wins, x_wins, draws, paths = self.core.extras(depth, slot)
        playout = Playout(o_wins, x_wins, draws, factorial(game.cells - depth))
        return replace(position, playout=playout, paths=paths)

    def _position(self, board: Board) -> Position:
        position = self._stored_position(board.stored_cells)
        return position.with_marks_swapped() if board.swapped else position

    def load_all(self) -> list[Position]:
        """Every canonical position, o first, in (depth, board) order; warms the cache."""
        return self.stored_positions(self.node_list("canonical"))

    def all_positions(self, depths: Iterable[int] | None = None) -> Iterator[Position]:
        """Every reachable board's position (of the levels `depths`, all by default), o first, in
        (depth, slot) order, derived from the core level by level (`CoreReader.positions`), with
        each class's odds and paths where kept; InvalidDepthError for a depth the game has not."""
        if depths is None:
            yield from self.core.positions(extras=self.has_extras)
            return
        for depth in self.levels(depths):
            yield from self.core.positions(extras=self.has_extras, depths=range(depth, depth + 1))

    def levels(self, depths: Iterable[int]) -> list[int]:
        """The levels named (by marks on the board), sorted, each once; InvalidDepthError for one the
        game has not."""
        wanted = sorted(set(depths))
        for depth in wanted:
            if not 0 <= depth <= self.game.cells:
                raise InvalidDepthError(str(depth), f"{self.game} has levels 0 to {self.game.cells} (the moves made)")
        return wanted

    def best_moves_table(self, *, shortest: bool = False) -> BestMovesTable:
        """Board (o first, any orientation) -> best moves, for every position still in play: the
        canonical boards' moves read the first time (from the plain table's rows where
        `reads_plain_rows`, else derived from the core in arrays), shared by the lookup AIs and the
        checks."""
        cached = self._best_moves_tables.get(shortest)
        if cached is not None:
            return cached
        self._require_extras("table of best moves for every position")
        from_rows = self.reads_plain_rows
        if from_rows:
            from ttt_db.store.class_rows import best_moves_by_board

            table = best_moves_by_board(self.reader, shortest=shortest)
        else:
            table = self.core.best_moves_by_board(shortest=shortest)
        figures = self._checked_meta()["figures"]
        if len(table) != figures.get("playing_canonical"):
            raise DatabaseDamagedError(
                f"{len(table):,} canonical positions in play, the build counted {figures.get('playing_canonical')!r}",
                f"table {POSITIONS if from_rows else CORE}",
            )
        playing = figures.get("playing")
        every_image = from_rows and isinstance(playing, int) and playing <= EVERY_IMAGE_FROM_ROWS
        view = BestMovesTable(self.game, table, playing, every_image=every_image)
        self._best_moves_tables[shortest] = view
        return view


class BestMovesTable(Mapping[str, tuple[int, ...]]):
    """Best moves of every board in play, in any orientation, from the canonical boards' moves
    (a read-only mapping; answers are remembered per board, or with `every_image` every board's
    are made at once)."""

    def __init__(
        self, game: Game, canonical: dict[str, tuple[int, ...]], size: int | None, *, every_image: bool = False
    ) -> None:
        self.game = game
        self._canonical = canonical
        self._answers = images_with_moves(canonical, game) if every_image else dict(canonical)
        self._size = size
        self._every_image = every_image

    def every_answer(self) -> Mapping[str, tuple[int, ...]] | None:
        """Every board's moves in one mapping, where they were made at once (`every_image`); else None."""
        return MappingProxyType(self._answers) if self._every_image else None

    def __getitem__(self, board: str) -> tuple[int, ...]:
        found = self._answers.get(board)
        if found is not None:
            return found
        if not isinstance(board, str) or len(board) != self.game.cells:
            raise KeyError(board)
        canonical, transform = canonical_transform(board, self.game)
        stored = self._canonical.get(canonical)
        if stored is None:  # every board in play has a row: a damaged or incomplete database (a KeyError too)
            raise PositionNotFoundError(board)
        moves = untransform_moves(stored, transform, self.game)
        if len(self._answers) < REMEMBERED_ANSWERS:
            self._answers[board] = moves
        return moves

    def __iter__(self) -> Iterator[str]:
        return iter(self._canonical)

    def __len__(self) -> int:
        return len(self._canonical)


def _check_schema(reader: Reader, location: DatabaseLocation) -> None:
    try:
        found = reader.rows(f"SELECT value FROM {META} WHERE key = :key", {"key": "schema_version"})
    except ReadFailedError as error:
        raise DatabaseError(f"{location} is not a ttt-db database ({error})") from None
    version = found[0].value if found else None
    if version is None:
        raise DatabaseDamagedError("meta entry 'schema_version' is missing", f"table {META}")
    try:
        found_version = json.loads(version)
    except (TypeError, ValueError):
        found_version = None
    if type(found_version) is not int:
        raise DatabaseDamagedError(f"meta entry 'schema_version' is {version!r}, not a number", f"table {META}")
    if found_version != SCHEMA_VERSION:
        raise DatabaseError(
            f"{location} has schema version {version}, this ttt-db reads version "
            f"{SCHEMA_VERSION}: rebuild it with `ttt-db build --force`"
        )


def open_database(
    db: str | os.PathLike[str] | DatabaseLocation | None = None,
    *,
    game: Game | str | None = None,
    digest: str | None = None,
    recorded: bool = True,
) -> SolutionDatabase:
    """Open the database at `db` (a path or SQLAlchemy URL), `$TTT_DB`, or the default path of
    `game` (a `Game` or its name, `"4x4k4"`; tic-tac-toe's when None), pinned to `digest` if
    given, else to `$TTT_DB_DIGEST`, else (with `recorded`) to the digest recorded when the file
    was built, fetched or verified (`ttt_db.store.pins`): a pinned database whose content digest
    differs is refused here.

    Raises `DatabaseMissingError` when there is none (`ttt_db.build.open_or_build` or
    `ttt-db build` makes it), `DatabaseError` when it is not a ttt-db database of this schema
    version, or when `game` is given and the database solves another game, `DigestMismatchError`
    (a `DatabaseDamagedError`) when it is not the one pinned, `InvalidDigestError` for a digest
    that is not one.

    >>> with open_database() as database:
    ...     database.lookup("ox..x....").best_moves, database.game.name
    ((7,), '3x3k3')
    """
    if isinstance(game, str):
        game = Game.parse(game)
    location = resolve_location(db, game or DEFAULT_GAME)
    pin = pin_for(location, digest, recorded=recorded)
    if not database_exists(location):
        what = f" for {game}" if game is not None and game != DEFAULT_GAME else ""
        build = f"ttt-db build --game {game}" if what else "ttt-db build"
        raise DatabaseMissingError(f"no database{what} at {location}; run `{build}` to create it")
    reader = make_reader(location)
    try:
        _check_schema(reader, location)
    except DatabaseError:
        reader.close()
        raise
    database = SolutionDatabase(reader, location, pin)
    try:
        if game is not None and database.game != game:
            raise DatabaseError(
                f"{location} solves {database.game}, not {game}: give --game {database.game}, or another --db"
            )
        if pin is not None:
            database._checked_meta()
    except BaseException:
        database.close()
        raise
    return database


def stored_game(db: str | os.PathLike[str] | DatabaseLocation) -> Game | None:
    """The game the database at `db` (a path or SQLAlchemy URL) solves, from its meta's rules, or
    None where there is no database there; DatabaseError where the file is not a ttt-db database
    of this schema version, DatabaseDamagedError where its rules name no game. Nothing is pinned
    or checked beyond that: `open_database` does that with the game it is given."""
    location = resolve_location(db, DEFAULT_GAME)
    if not database_exists(location):
        return None
    reader = make_reader(location)
    try:
        _check_schema(reader, location)
        return SolutionDatabase(reader, location, None).game
    finally:
        reader.close()


def _groups(items: Iterable[T]) -> Iterator[list[T]]:
    """The items in lists of at most GROUP_BOARDS, in order."""
    iterator = iter(items)
    while group := list(islice(iterator, GROUP_BOARDS)):
        yield group


def _batch_record(item: object) -> Mapping[str, Any]:
    """A batch's item as a record with a board's text; InputError quoting it when it is none."""
    record: object = item
    if isinstance(item, str):
        record = {"board": item}
        if item.startswith("{"):
            try:
                record = read_json(item)
            except ValueError as error:
                raise InputError(_shown(item), f"not a JSON record: {error}") from None
    if not isinstance(record, Mapping) or not isinstance(record.get("board"), str):
        raise InputError(_shown(item), 'a record is {"board": "...", "first": "o" or "x"}')
    return record


def _shown(item: object) -> str:
    """An item of a batch as its error quotes it: JSON where it is JSON's, else its repr."""
    try:
        return json.dumps(item)
    except (TypeError, ValueError):
        return repr(item)
