"""Reading the ranked core: a board's value and remoteness from the code byte of its class's
representative slot (`ttt_db.game.slots`, `ttt_db.store.codes`), one compressed chunk at a time.

Each chunk read is checked against its checksum and its size before it is decompressed and kept
in a small cache, so a lookup reads one chunk and a warm handle reads none.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any, Final

from ttt_db.errors import DatabaseDamagedError
from ttt_db.game.definition import Game
from ttt_db.game.rules import Value
from ttt_db.game.slots import level_slots, representative
from ttt_db.store.codes import CHUNK_SLOTS, chunk_checksum, value_of_code
from ttt_db.store.position import Position
from ttt_db.store.reader import Reader
from ttt_db.store.tables import CORE

CACHED_CHUNKS: Final = 512
"""Decompressed chunks a handle keeps (at most CHUNK_SLOTS bytes each)."""


class CoreReader:
    """The core of one database; safe to share between threads."""

    def __init__(self, reader: Reader, game: Game) -> None:
        self.reader = reader
        self.game = game
        self._chunks: OrderedDict[tuple[int, int], bytes] = OrderedDict()
        self._lock = threading.Lock()

    def chunk(self, depth: int, number: int) -> bytes:
        """Level `depth`'s chunk `number`, decompressed; DatabaseDamagedError when it is missing,
        fails its checksum or decompresses to another size than its place in the level."""
        key = (depth, number)
        with self._lock:
            found = self._chunks.get(key)
            if found is not None:
                self._chunks.move_to_end(key)
                return found
        codes = self._read(depth, number)
        with self._lock:
            self._chunks[key] = codes
            while len(self._chunks) > CACHED_CHUNKS:
                self._chunks.popitem(last=False)
        return codes

    def _read(self, depth: int, number: int) -> bytes:
        import zstandard

        where = f"table {CORE}, level {depth} chunk {number}"
        rows = self.reader.rows(
            f"SELECT slots, codes, checksum FROM {CORE} WHERE depth = :depth AND chunk = :chunk",
            {"depth": depth, "chunk": number},
        )
        if not rows:
            raise DatabaseDamagedError("a chunk of the core is missing", where)
        slots, blob, check = rows[0]
        expected = min(CHUNK_SLOTS, level_slots(self.game.cells, depth) - number * CHUNK_SLOTS)
        if not isinstance(blob, bytes) or check != chunk_checksum(self.game.name, depth, number, blob):
            raise DatabaseDamagedError("a chunk of the core does not match its checksum", where)
        if slots != expected:
            raise DatabaseDamagedError(f"a chunk of the core holds {slots!r} slots, not {expected}", where)
        try:
            codes = zstandard.ZstdDecompressor().decompress(blob, max_output_size=CHUNK_SLOTS)
        except zstandard.ZstdError:
            raise DatabaseDamagedError("a chunk of the core does not decompress", where) from None
        if len(codes) != expected:
            raise DatabaseDamagedError(f"a chunk of the core decompresses to {len(codes)} slots, not {expected}", where)
        return codes

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

    def positions(self) -> Iterator[Position]:
        """Every reachable board's position (o first, without odds or paths), in (depth, slot)
        order, a level and a block of slots at a time: each move's value from the codes of the
        next level, expanded from its representatives."""
        import numpy as np

        from ttt_db.game.rules import VALUES
        from ttt_db.store.core_arrays import Tables, block_moves, boards_of_block, expand_level, move_of_worth

        game = self.game
        tables = Tables(game)

        def expanded(depth: int) -> Any:
            data, damage = self.level(depth)
            if damage:
                raise damage[0]
            return expand_level(tables, depth, np.frombuffer(data, np.uint8))

        here = expanded(0)
        for depth in range(game.cells + 1):
            below = expanded(depth + 1) if depth < game.cells else None
            insert = tables.insert(depth) if below is not None else None
            for block in tables.blocks(depth):
                codes = here[block.slots]
                reached = np.flatnonzero(codes)
                if len(reached) == 0:
                    continue
                moves = None
                if below is not None and insert is not None:
                    moves = block_moves(tables, block, below, insert, masks=True).by_cell
                    moves = moves.reshape(-1, game.cells) if moves is not None else None
                for slot, board in zip(reached.tolist(), boards_of_block(block, game.cells, reached), strict=True):
                    own = value_of_code(int(codes[slot]))
                    if own is None:
                        raise DatabaseDamagedError("a code no build writes", f"table {CORE}, level {depth}")
                    analyses = []
                    if moves is not None and own[1] > 0:
                        for cell, worth in enumerate(moves[slot].tolist()):
                            if worth:
                                rank, after = move_of_worth(worth)
                                analyses.append((cell, VALUES[rank], after))
                    yield Position.from_values(board, game, own, analyses)
            if below is not None:
                here = below
