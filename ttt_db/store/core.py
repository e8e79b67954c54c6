"""Reading the ranked core: a board's value and remoteness from the code byte of its class's
representative slot (`ttt_db.game.slots`, `ttt_db.store.codes`), one compressed chunk at a time,
and its class's extras (`ttt_db.store.extras`); in arrays, the named lists of boards, the
best-moves table and every position, derived level by level.

Each chunk read is checked against its checksum and its size before it is decompressed and kept
in a small cache, so a lookup reads one chunk and a warm handle reads none.
"""

from __future__ import annotations

import threading
from array import array
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import replace
from math import factorial
from typing import Any, Final, TypeVar

from ttt_db.errors import DatabaseDamagedError, NotStoredError
from ttt_db.game.definition import Game, level_slots
from ttt_db.game.rules import Value
from ttt_db.game.slots import representative
from ttt_db.store.codes import CHUNK_SLOTS, chunk_checksum, value_of_code
from ttt_db.store.extras import EXTRAS_FIELDS, decode_extras
from ttt_db.store.position import Playout, Position
from ttt_db.store.reader import Reader
from ttt_db.store.tables import CORE, EXTRAS

T = TypeVar("T")
CACHED_CHUNKS: Final = 512
"""Decompressed chunks a handle keeps (at most CHUNK_SLOTS bytes each)."""
NODE_LISTS: Final = ("all", "canonical", "playing", "playing_canonical", "decision", "decision_canonical")
"""The named lists of boards the core derives (`CoreReader.node_list_keys`)."""


class CoreReader:
    """The core of one database; safe to share between threads."""

    def __init__(self, reader: Reader, game: Game) -> None:
        self.reader = reader
        self.game = game
        self._chunks: OrderedDict[tuple[int, int], bytes] = OrderedDict()
        self._extras: OrderedDict[tuple[int, int], array[int]] = OrderedDict()
        self._lock = threading.Lock()

    def chunk(self, depth: int, number: int) -> bytes:
        """Level `depth`'s chunk `number`, decompressed; DatabaseDamagedError when it is missing,
        fails its checksum or decompresses to another size than its place in the level."""
        return self._cached(self._chunks, (depth, number), lambda: self._read(depth, number))

    def _cached(self, store: OrderedDict[tuple[int, int], T], key: tuple[int, int], load: Callable[[], T]) -> T:
        with self._lock:
            found = store.get(key)
            if found is not None:
                store.move_to_end(key)
                return found
        loaded = load()
        with self._lock:
            store[key] = loaded
            while len(store) > CACHED_CHUNKS:
                store.popitem(last=False)
        return loaded

    def _read(self, depth: int, number: int) -> bytes:
        slots = min(CHUNK_SLOTS, level_slots(self.game.cells, depth) - number * CHUNK_SLOTS)
        return self._fetch("core", depth, number, slots, slots)

    def _fetch(self, part: str, depth: int, number: int, count: int, size: int) -> bytes:
        """One chunk of the core (`count` slots) or of the extras (`count` classes), `size` bytes
        decompressed; DatabaseDamagedError when it is missing, fails its checksum, holds another
        count or decompresses to another size."""
        import zstandard

        table, column, unit = (CORE, "codes", "slots") if part == "core" else (EXTRAS, "extras", "classes")
        where = f"table {table}, level {depth} chunk {number}"
        rows = self.reader.rows(
            f"SELECT {unit}, {column}, checksum FROM {table} WHERE depth = :depth AND chunk = :chunk",
            {"depth": depth, "chunk": number},
        )
        if not rows:
            raise DatabaseDamagedError(f"a chunk of the {part} is missing", where)
        stored, blob, check = rows[0]
        if not isinstance(blob, bytes) or check != chunk_checksum(self.game.name, depth, number, blob, part=part):
            raise DatabaseDamagedError(f"a chunk of the {part} does not match its checksum", where)
        if stored != count:
            raise DatabaseDamagedError(f"a chunk of the {part} holds {stored!r} {unit}, not {count}", where)
        try:
            data = zstandard.ZstdDecompressor().decompress(blob, max_output_size=size)
        except zstandard.ZstdError:
            raise DatabaseDamagedError(f"a chunk of the {part} does not decompress", where) from None
        if len(data) != size:
            raise DatabaseDamagedError(f"a chunk of the {part} decompresses to {len(data)} bytes, not {size}", where)
        return data

    def code(self, depth: int, slot: int) -> int:
        number, offset = divmod(slot, CHUNK_SLOTS)
        return self.chunk(depth, number)[offset]

    def value_of(self, board: str) -> tuple[Value, int]:
        """(value for the side to move, remoteness) of a reachable board (o first), from the code
        of its class's representative; DatabaseDamagedError when that slot holds none."""
        depth, slot, _ = representative(board, self.game)
        decoded = value_of_code(self.code(depth, slot))
        if decoded is None:
            raise DatabaseDamagedError(
                f"no value for {board!r} in the core", f"table {CORE}, level {depth} slot {slot}"
            )
        return decoded

    def chunk_count(self, depth: int) -> int:
        return -(-level_slots(self.game.cells, depth) // CHUNK_SLOTS)

    def level(self, depth: int) -> tuple[bytes, list[DatabaseDamagedError]]:
        """A whole level's stored codes (a damaged chunk read as zeros), and the damage found;
        read past the cache, for `verify`."""
        parts: list[bytes] = []
        damage: list[DatabaseDamagedError] = []
        for number in range(self.chunk_count(depth)):
            try:
                parts.append(self._read(depth, number))
            except DatabaseDamagedError as error:
                damage.append(error)
                parts.append(bytes(min(CHUNK_SLOTS, level_slots(self.game.cells, depth) - number * CHUNK_SLOTS)))
        return b"".join(parts), damage

    def extras(self, depth: int, slot: int) -> tuple[int, int, int, int]:
        """(o wins, x wins, draws, paths) of the class whose representative is `slot` of level
        `depth` (`ttt_db.store.extras`); DatabaseDamagedError when they cannot be right."""
        number, offset = divmod(slot, CHUNK_SLOTS)
        codes = self.chunk(depth, number)
        ordinal = offset - codes[:offset].count(0)
        values = self._extras_chunk(depth, number, len(codes) - codes.count(0))
        o_wins, x_wins, draws, paths = values[4 * ordinal : 4 * ordinal + 4]
        ways = factorial(self.game.cells - depth)
        if min(o_wins, x_wins, draws) < 0 or o_wins + x_wins + draws != ways or paths < 1:
            where = f"table {EXTRAS}, level {depth} chunk {number}"
            raise DatabaseDamagedError(
                f"odds {[o_wins, x_wins, draws]} and paths {paths} for slot {slot}: not {ways:,} move orders", where
            )
        return o_wins, x_wins, draws, paths

    def extras_level_chunk(self, depth: int, number: int, classes: int) -> Any:
        """A chunk of the extras as an array (classes x EXTRAS_FIELDS), read past the cache, for
        `verify`; DatabaseDamagedError when it cannot be right."""
        import numpy as np

        with self._lock:
            self._extras.pop((depth, number), None)
        values = self._extras_chunk(depth, number, classes)
        return np.array(values, dtype=np.int64).reshape(-1, len(EXTRAS_FIELDS))

    def _extras_chunk(self, depth: int, number: int, classes: int) -> array[int]:
        size = 8 * len(EXTRAS_FIELDS) * classes
        return self._cached(
            self._extras, (depth, number), lambda: decode_extras(self._fetch("extras", depth, number, classes, size))
        )

    def _expanded(self, tables: Any, depth: int) -> Any:
        """Every reachable slot's code of a level (its stored codes expanded), for work in arrays."""
        import numpy as np

        from ttt_db.store.core_arrays import expand_level

        data, damage = self.level(depth)
        if damage:
            raise damage[0]
        return expand_level(tables, depth, np.frombuffer(data, np.uint8))

    def node_list_keys(self, name: str) -> list[int]:
        """The boards of a named list (`NODE_LISTS`) as base-3 keys in (depth, key) order, derived
        from the core level by level: every position, those in play, the decision positions (some
        move loses value), each alone or only the canonical boards (`..._canonical`)."""
        import numpy as np

        from ttt_db.store.core_arrays import Tables, block_moves, block_state, canonical_boards

        if name not in NODE_LISTS:
            raise NotStoredError(f"no node list is called {name!r}: there are {', '.join(NODE_LISTS)}")
        kind = name.removesuffix("canonical").rstrip("_") or "all"
        canonical = name.endswith("canonical")
        tables = Tables(self.game)
        n = self.game.cells
        keys: list[Any] = []
        here = self._expanded(tables, 0)
        for depth in range(n + 1):
            below = self._expanded(tables, depth + 1) if depth < n and kind == "decision" else None
            insert = tables.insert(depth) if below is not None else None
            level_keys = []
            for block in tables.blocks(depth):
                chosen = here[block.slots].reshape(block.o_cells.shape) != 0
                if kind != "all":
                    chosen &= ~block_state(tables, block).finished
                if kind == "decision":
                    if below is None or insert is None:
                        continue
                    chosen &= block_moves(tables, block, below, insert).deciding
                if canonical:
                    chosen &= canonical_boards(tables, block)
                level_keys.append(tables.keys(block.occupied, block.o_cells)[chosen])
            keys.append(np.sort(np.concatenate(level_keys)) if level_keys else np.zeros(0, np.int64))
            if depth < n:
                here = below if below is not None else self._expanded(tables, depth + 1)
        result: list[int] = np.concatenate(keys).tolist()
        return result

    def best_moves_by_board(self, *, shortest: bool) -> dict[str, tuple[int, ...]]:
        """The best (`shortest`: fastest) moves of every canonical board in play, derived from the
        core level by level."""
        import numpy as np

        from ttt_db.store.core_arrays import Tables, block_moves, block_state, boards_of_block, canonical_boards

        tables = Tables(self.game)
        n = self.game.cells
        table: dict[str, tuple[int, ...]] = {}
        cells = range(n)
        here = self._expanded(tables, 0)
        for depth in range(n):
            below = self._expanded(tables, depth + 1)
            insert = tables.insert(depth)
            for block in tables.blocks(depth):
                chosen = (here[block.slots].reshape(block.o_cells.shape) != 0) & ~block_state(tables, block).finished
                chosen &= canonical_boards(tables, block)
                where = np.flatnonzero(chosen)
                if len(where) == 0:
                    continue
                moves = block_moves(tables, block, below, insert, masks=True)
                masks = moves.fastest if shortest else moves.best
                assert masks is not None
                for board, mask in zip(boards_of_block(block, n, where), masks.ravel()[where].tolist(), strict=True):
                    table[board] = tuple(cell for cell in cells if mask >> cell & 1)
            here = below
        return table

    def positions(self, *, extras: bool) -> Iterator[Position]:
        """Every reachable board's position (o first), in (depth, slot) order, a level and a block
        of slots at a time: each move's value from the codes of the next level, expanded from its
        representatives; with `extras`, each board's random-play odds and paths."""
        import numpy as np

        from ttt_db.game.rules import VALUES
        from ttt_db.store.core_arrays import (
            Tables,
            block_moves,
            block_state,
            boards_of_block,
            hold_to_children,
            move_of_worth,
            representative_slots,
        )

        game = self.game
        tables = Tables(game)
        here = self._expanded(tables, 0)
        for depth in range(game.cells + 1):
            below = self._expanded(tables, depth + 1) if depth < game.cells else None
            insert = tables.insert(depth) if below is not None else None
            ways = factorial(game.cells - depth)
            for block in tables.blocks(depth):
                codes = here[block.slots]
                state = block_state(tables, block)
                block_moves_here = (
                    None if below is None or insert is None else block_moves(tables, block, below, insert, masks=True)
                )
                hold_to_children(tables, here, block, state, block_moves_here)  # a forged code is never exported
                reached = np.flatnonzero(codes)
                if len(reached) == 0:
                    continue
                moves = None
                if block_moves_here is not None and block_moves_here.by_cell is not None:
                    moves = block_moves_here.by_cell.reshape(-1, game.cells)
                classes = representative_slots(tables, block).ravel()[reached].tolist() if extras else None
                for i, (slot, board) in enumerate(
                    zip(reached.tolist(), boards_of_block(block, game.cells, reached), strict=True)
                ):
                    own = value_of_code(int(codes[slot]))
                    if own is None:
                        raise DatabaseDamagedError("a code no build writes", f"table {CORE}, level {depth}")
                    analyses = []
                    if moves is not None and own[1] > 0:
                        for cell, worth in enumerate(moves[slot].tolist()):
                            if worth:
                                rank, after = move_of_worth(worth)
                                analyses.append((cell, VALUES[rank], after))
                    position = Position.from_values(board, game, own, analyses)
                    if classes is not None:
                        o_wins, x_wins, draws, paths = self.extras(depth, classes[i])
                        position = replace(position, playout=Playout(o_wins, x_wins, draws, ways), paths=paths)
                    yield position
            if below is not None:
                here = below
