"""Read access to a built solution database.

    with open_database() as db:
        db.lookup("ox..x....").best_moves      # raises on an impossible board
        db.get("xxx......")                    # None instead of raising

Only canonical positions are stored, one row per symmetry class keyed by the board's integer
key (`ttt_db.game.definition.Game.key`); any other orientation is answered by transforming the row of its
canonical image. Rows are read by primary key and cached, so a warm handle answers from memory;
`load_all()` reads every row in one query for work that touches every class.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any, Final, TypeVar

from ttt_db.errors import (
    DatabaseDamagedError,
    DatabaseError,
    DatabaseMissingError,
    ImpossibleBoardError,
    InputError,
    InvalidBoardError,
    NotStoredError,
    PositionNotFoundError,
    ReadFailedError,
)
from ttt_db.game import definition
from ttt_db.game.board import Board
from ttt_db.game.definition import DEFAULT_GAME, Game, boards_of_keys
from ttt_db.game.rules import Mark, Value
from ttt_db.game.symmetry import canonical_transform, untransform_moves
from ttt_db.store import decode as stored
from ttt_db.store.checksum import (
    DEPTH_FIELDS,
    META_CHECK_KEY,
    MOVES_FIELDS,
    ROW_FIELDS,
    blob_checksum,
    checksum,
    depth_numbers,
    meta_checksum,
    rows_failing,
    seed,
)
from ttt_db.store.core import CoreReader
from ttt_db.store.digest import Level, content_digest, levels_of_rows
from ttt_db.store.figures import DepthFigures
from ttt_db.store.location import DatabaseLocation, resolve_location
from ttt_db.store.position import MoveAnalysis, Position
from ttt_db.store.reader import EngineReader, Reader, SqliteFileReader, in_list
from ttt_db.store.tables import CORE, DEPTH_COUNTS, META, NODE_LISTS, POSITION_COLUMNS, POSITIONS, SCHEMA_VERSION

if TYPE_CHECKING:
    from sqlalchemy import Engine

T = TypeVar("T")
REQUIRED_META = (
    "schema_version",
    "rules",
    "package_version",
    "built_at",
    "figures",
    "format",
    "content_sha256",
    META_CHECK_KEY,
)
_CHUNK = 500  # boards per `IN (...)` query, well under every engine's parameter limit

_ROW = ", ".join(POSITION_COLUMNS)


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


_SMALL_TABLE_ROWS: Final = 50_000
"""Up to this many canonical positions in play, an AI reads the whole best-moves table at once."""


class SolutionDatabase:
    """An open solution database. Use `open_database()` to get one.

    Safe to share between threads: every query takes its own pooled connection, and the caches
    only ever gain entries that are equal whichever thread adds them. Everything read from the
    file is checked as it is decoded (`ttt_db.store.decode`); damage raises `DatabaseDamagedError`.
    """

    def __init__(self, reader: Reader, location: DatabaseLocation) -> None:
        self.reader = reader
        self.location = location
        self._stored: dict[str, Position] = {}  # positions (o first) by board, any orientation
        self._canonical: dict[int, Position] = {}  # decoded rows by key
        self._game: Game | None = None
        self._answers: dict[tuple[str, Mark], Position] = {}  # by normalised cells and first player
        self._by_plain_text: dict[str, Position] = {}  # normalised cells, first player inferred
        self._meta: dict[str, Any] | None = None
        self._all_loaded = False
        self._scanned: tuple[list[Position], list[DatabaseDamagedError]] | None = None
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
        """The meta entries, read and checked once per handle: every read of stored content
        (positions, best moves, node lists) begins here."""
        if self._meta is None:
            rows = self.reader.rows(f"SELECT key, value FROM {META}")
            where = f"table {META}"
            entries = {row.key: row.value for row in rows}
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
            self._meta = decoded
        return self._meta

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
            except ValueError:
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
            self._core = CoreReader(self.reader, self.game)
        return self._core

    @property
    def has_rows(self) -> bool:
        """Whether rows, node lists and random-play odds are stored beside the core (games of at
        most `ROWS_MAX_CELLS` cells), or the core alone: decided by the game."""
        return self.game.keeps_rows

    def _require_rows(self, what: str) -> None:
        if not self.has_rows:
            raise NotStoredError(
                f"the {self.game} database keeps the ranked core alone (over {definition.ROWS_MAX_CELLS} cells): "
                f"it stores no {what}"
            )

    def depth_figures(self) -> list[DepthFigures]:
        rows = self.reader.rows(f"SELECT {', '.join(DEPTH_FIELDS)}, checksum FROM {DEPTH_COUNTS} ORDER BY depth")
        where = f"table {DEPTH_COUNTS}"
        names = ("depth", "tree nodes", "positions", "canonical positions")
        rows_stored = self.has_rows
        figures = [
            [
                None
                if field == "tree_nodes" and not rows_stored and getattr(row, field) is None
                else stored.whole_number(getattr(row, field), name, where, 0, 10**19)
                for field, name in zip(DEPTH_FIELDS, names, strict=True)
            ]
            for row in rows
        ]
        start = seed(self.game.name, "depth")
        for row, counts in zip(rows, figures, strict=True):
            if row.checksum != checksum(start, depth_numbers(counts)):
                raise DatabaseDamagedError(f"the counts at depth {counts[0]} do not match their checksum", where)
        return [DepthFigures(*counts) for counts in figures]  # type: ignore[arg-type]

    def info_document(self) -> dict[str, Any]:
        """What `ttt-db info --json` prints: where the database is, its size, every meta entry, and
        the figures per depth."""
        path = self.location.path
        return {
            "location": str(self.location),
            "size_bytes": path.stat().st_size if path is not None else None,
            **self.meta(),
            "depths": [row.to_dict() for row in self.depth_figures()],
        }

    @property
    def empty_board_value(self) -> Value:
        """What o, moving first, gets from the empty board with best play (a draw on 3x3)."""
        return self.lookup(self.game.empty_board).value

    def node_list(self, name: str) -> list[str]:
        """A stored list of boards (`all`, `canonical`, `playing`, `decision`, ...)."""
        return boards_of_keys(self.node_list_keys(name), self.game)

    def node_list_keys(self, name: str) -> list[int]:
        """A stored list as board keys, in (depth, key) order."""
        self._require_rows(f"node list {name!r}")
        found = self.reader.rows(f"SELECT size, boards, checksum FROM {NODE_LISTS} WHERE name = :name", {"name": name})
        where = f"table {NODE_LISTS}"
        if not found:
            raise DatabaseDamagedError(f"node list {name!r} is missing", where)
        size, boards, check = found[0]
        what = f"node list {name!r}"
        game = self.game
        if not isinstance(boards, bytes) or check != blob_checksum(game.name, "list", name, size, boards):
            raise DatabaseDamagedError(f"{what} does not match its checksum", where)
        expected = self._checked_meta()["figures"].get(name)
        if expected is not None and size != expected:
            raise DatabaseDamagedError(f"{what} holds {size!r} boards, the build counted {expected!r}", where)
        return stored.node_list_keys(boards, size, what, where, game)

    def node_list_names(self) -> list[str]:
        return [row.name for row in self.reader.rows(f"SELECT name FROM {NODE_LISTS} ORDER BY name")]

    def integrity_problems(self) -> list[str]:
        """What the engine's own integrity check reports (SQLite's `PRAGMA integrity_check`;
        other engines have none to run): empty when the file is sound."""
        if self.reader.dialect != "sqlite":
            return []
        lines = [str(row[0]) for row in self.reader.rows("PRAGMA integrity_check")]
        return [] if lines == ["ok"] else lines

    def content_digest(self, levels: Iterable[Level] | None = None) -> str:
        """The content digest recomputed from the stored rows, lists and counts, exactly as the
        build computed the `content_sha256` meta entry. `levels`: the stored rows as levels of
        columns when the caller has read them already (`verify`), so they are not read twice."""
        if levels is None:
            rows = self.reader.rows(f"SELECT {_ROW} FROM {POSITIONS} ORDER BY depth, key")
            levels = levels_of_rows((tuple(row) for row in rows), POSITION_COLUMNS.index("depth"))
        lists = self.reader.rows(f"SELECT name, size, boards FROM {NODE_LISTS}")
        depths = self.reader.rows(
            f"SELECT depth, tree_nodes, positions, canonical_positions FROM {DEPTH_COUNTS} ORDER BY depth"
        )
        node_lists = {name: (size, boards) for name, size, boards in lists}
        columns = [
            [r.tree_nodes for r in depths],
            [r.positions for r in depths],
            [r.canonical_positions for r in depths],
        ]
        chunks = self.reader.rows(f"SELECT depth, chunk, slots, codes, checksum FROM {CORE} ORDER BY depth, chunk")
        core = levels_of_rows((tuple(row) for row in chunks), 0)
        return content_digest(levels, node_lists, columns, core)

    # --- positions -----------------------------------------------------------------------

    def lookup(self, board: str | Board, *, first: Mark | None = None) -> Position:
        """The solved position, in the board's own marks. `first` says who moved first when
        the counts are equal (o by default). Raises `InvalidBoardError` (a `ValueError`) for
        malformed or impossible boards, `TypeError` for anything but a string or a Board, and
        `DatabaseDamagedError` (`PositionNotFoundError` for a missing row) when the database
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
            position = self._answers.setdefault(key, self._position(parsed))
        if first is None and board == parsed.cells:  # already in normal form: the fast path's key
            self._by_plain_text[parsed.cells] = position
        return position

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
        if not self.has_rows:
            return self.best_moves(board, shortest=shortest)
        table = self._best_moves_tables.get(shortest)
        if table is None and self._small_game():
            table = self.best_moves_table(shortest=shortest)
        if table is not None:
            return table[board]
        return self.best_moves(board, shortest=shortest)

    def _small_game(self) -> bool:
        return int(self._checked_meta()["figures"].get("playing_canonical", 0)) <= _SMALL_TABLE_ROWS

    def analyse(self, board: str | Board) -> tuple[MoveAnalysis, ...]:
        """Every legal move with its value for the mover and the remoteness after it."""
        return self.lookup(board).moves

    def _rows_by_key(self, keys: Sequence[int]) -> dict[int, Any]:
        """The rows of `keys` that exist, by key (the primary key: SQLite's rowid itself)."""
        rows: dict[int, Any] = {}
        for start in range(0, len(keys), _CHUNK):
            placeholders, params = in_list("k", keys[start : start + _CHUNK])
            for row in self.reader.rows(f"SELECT {_ROW} FROM {POSITIONS} WHERE key IN ({placeholders})", params):
                rows[row.key] = row
        return rows

    def stored_positions(self, boards: Iterable[str]) -> list[Position]:
        """Positions (o first) of boards in any orientation, in the order given: each is the
        row of its canonical image, transformed back; rows not yet cached are read in a few
        queries. PositionNotFoundError for a board whose canonical image has no row. A game stored
        as its core alone derives each position from the core."""
        game = self.game
        wanted = list(boards)
        if not self.has_rows:
            for board in dict.fromkeys(wanted):
                if board not in self._stored:
                    self._stored[board] = Position.from_core(board, game, self.core.value_of)
            return [self._stored[board] for board in wanted]
        images = {
            board: canonical_transform(board, game) for board in dict.fromkeys(wanted) if board not in self._stored
        }
        missing = sorted({game.key(canonical) for canonical, _ in images.values()} - self._canonical.keys())
        if missing and not self._all_loaded:
            positions, damage = self._decoded(list(self._rows_by_key(missing).values()))
            if damage:
                raise damage[0]
            for position in positions:
                self._hold_to_core(position)
                self._canonical.setdefault(game.key(position.board), position)
        for board, (canonical, transform) in images.items():
            found = self._canonical.get(game.key(canonical))
            if found is None or found.board != canonical:
                raise PositionNotFoundError(board)
            self._stored.setdefault(board, found.seen_as(board, transform))
        return [self._stored[board] for board in wanted]

    def _position(self, board: Board) -> Position:
        try:
            position = self.stored_positions([board.stored_cells])[0]
        except PositionNotFoundError:
            raise PositionNotFoundError(board.cells) from None
        return position.with_marks_swapped() if board.swapped else position

    def _hold_to_core(self, position: Position) -> None:
        """A row's value and remoteness against the core's; DatabaseDamagedError when they differ."""
        core = self.core.value_of(position.board)
        if (position.value, position.remoteness) != core:
            raise DatabaseDamagedError(
                f"value and remoteness {position.value} in {position.remoteness} disagree with the core's "
                f"{core[0]} in {core[1]}",
                f"row for {position.board!r}",
            )

    def load_all(self) -> list[Position]:
        """Every stored (canonical) position, o first, in (depth, key) order; warms the cache.
        DatabaseDamagedError at the first row that cannot be right."""
        positions, damage = self.scan()
        if damage:
            raise damage[0]
        return positions

    def all_positions(self) -> Iterator[Position]:
        """Every reachable board's position, o first, in (depth, board) order: the stored rows
        in all their orientations (the `all` list). A game stored as its core alone streams its
        positions in (depth, slot) order from the core, without odds or paths."""
        if not self.has_rows:
            yield from self.core.positions()
            return
        boards = self.node_list("all")
        self.load_all()
        for start in range(0, len(boards), 10_000):
            chunk = boards[start : start + 10_000]
            yield from self.stored_positions(chunk)
            for board in chunk:  # the cache of orientations would otherwise hold them all
                self._stored.pop(board, None)

    def scan(self) -> tuple[list[Position], list[DatabaseDamagedError]]:
        """Every row that decodes, and the damage found in the others (for `verify`); read once
        per handle, as the database does not change under an open handle."""
        if self._scanned is not None:
            return list(self._scanned[0]), list(self._scanned[1])
        self._require_rows("rows")
        game = self.game
        rows = self.reader.rows(f"SELECT {_ROW} FROM {POSITIONS} ORDER BY depth, key")
        positions, damage = self._decoded(rows)
        counted = self._checked_meta()["figures"].get("canonical_positions")
        if len(rows) != counted:
            damage.append(
                DatabaseDamagedError(f"{len(rows):,} rows, the build counted {counted!r}", f"table {POSITIONS}")
            )
        if not damage:
            for position in positions:
                self._canonical.setdefault(game.key(position.board), position)
            self._all_loaded = True
        self._scanned = (positions, damage)
        return list(positions), list(damage)

    def _decoded(self, rows: Sequence[Any]) -> tuple[list[Position], list[DatabaseDamagedError]]:
        """The positions of the rows that decode and match their checksum, and the damage in the others."""
        self._checked_meta()
        game = self.game
        positions: list[Position] = []
        decoded: list[Any] = []
        damage: list[DatabaseDamagedError] = []
        for row in rows:
            try:
                positions.append(Position.from_row(row, game))
                decoded.append(row)
            except DatabaseDamagedError as error:
                damage.append(error)
        failing = set(rows_failing(decoded, ROW_FIELDS, "row_check", seed(game.name, "row"), game.cells))
        for index in sorted(failing):
            damage.append(
                DatabaseDamagedError("the row does not match its checksum", f"row for {positions[index].board!r}")
            )
        return [p for i, p in enumerate(positions) if i not in failing], damage

    def best_moves_table(self, *, shortest: bool = False) -> BestMovesTable:
        """Board (o first, any orientation) -> best moves, for every position still in play:
        the canonical rows' moves read in one query the first time, shared by the lookup AIs
        and the checks."""
        cached = self._best_moves_tables.get(shortest)
        if cached is not None:
            return cached
        self._require_rows("table of best moves for every position")
        rows = self.reader.rows(
            f"SELECT {', '.join(MOVES_FIELDS)}, moves_check FROM {POSITIONS} WHERE status = :status",
            {"status": "playing"},
        )
        what = "shortest best moves" if shortest else "best moves"
        figures = self._checked_meta()["figures"]
        game = self.game
        table: dict[str, tuple[int, ...]] = {}
        if len(rows) != figures.get("playing_canonical"):
            raise DatabaseDamagedError(
                f"{len(rows):,} positions in play, the build counted {figures.get('playing_canonical')!r}",
                f"table {POSITIONS}",
            )
        keys = [row.key for row in rows]
        if not all(type(key) is int and 0 <= key < 3**game.cells for key in keys):
            raise DatabaseDamagedError(f"a key that is no {game} board's", f"table {POSITIONS}")
        for board, row in zip(boards_of_keys(keys, game), rows, strict=True):
            where = f"row for {board!r}"
            moves = stored.moves_of_mask(board, row.best_moves_shortest if shortest else row.best_moves, what, where)
            if not moves:
                raise DatabaseDamagedError(f"no {what} for a position in play", where)
            table[board] = moves  # the other mask is proven by the checksum alone
        failing = rows_failing(rows, MOVES_FIELDS, "moves_check", seed(game.name, "moves"), game.cells)
        if failing:
            where = f"row for {game.board_of(rows[failing[0]].key)!r}"
            raise DatabaseDamagedError("the key, status and best moves do not match their checksum", where)
        view = self._best_moves_tables[shortest] = BestMovesTable(game, table, figures.get("playing"))
        return view


class BestMovesTable(Mapping[str, tuple[int, ...]]):
    """Best moves of every board in play, in any orientation, from the canonical boards' moves
    (a read-only mapping; answers are remembered per board)."""

    def __init__(self, game: Game, canonical: dict[str, tuple[int, ...]], size: int | None) -> None:
        self.game = game
        self._canonical = canonical
        self._answers: dict[str, tuple[int, ...]] = dict(canonical)
        self._size = size

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
        if len(self._answers) < 2_000_000:
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
    db: str | os.PathLike[str] | DatabaseLocation | None = None, *, game: Game | None = None
) -> SolutionDatabase:
    """Open the database at `db` (a path or SQLAlchemy URL), `$TTT_DB`, or the default path of
    `game` (tic-tac-toe's when None).

    Raises `DatabaseMissingError` when there is none (`builder.open_or_build` or
    `ttt-db build` makes it) and `DatabaseError` when it is not a ttt-db database of this
    schema version, or when `game` is given and the database solves another game.
    """
    location = resolve_location(db, game or DEFAULT_GAME)
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
    database = SolutionDatabase(reader, location)
    if game is not None and database.game != game:
        database.close()
        raise DatabaseError(
            f"{location} solves {database.game}, not {game}: give --game {database.game}, or another --db"
        )
    return database
