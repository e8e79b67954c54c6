"""Edits to a built database file as a careful forger makes them: a code of the core or a class's
extras changed, and the chunk's checksum recomputed with the library's own function, so that only
what lies behind the checksums (the rules, the children's codes, verify) can refuse it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import zstandard

from ttt_db.game.definition import Game
from ttt_db.ranked.slots import representative
from ttt_db.store.chunks import CHUNK_SLOTS, chunk_checksum
from ttt_db.store.extras import EXTRAS_FIELDS, decode_extras


def _chunk(conn: sqlite3.Connection, table: str, column: str, depth: int, number: int) -> bytes:
    row = conn.execute(f"select {column} from {table} where depth = ? and chunk = ?", (depth, number)).fetchone()
    return zstandard.ZstdDecompressor().decompress(row[0])


def _reseal(
    conn: sqlite3.Connection, table: str, column: str, game: Game, depth: int, number: int, data: bytes
) -> None:
    reseal_blob(conn, table, column, game, depth, number, zstandard.ZstdCompressor().compress(data))


def reseal_blob(
    conn: sqlite3.Connection, table: str, column: str, game: Game, depth: int, number: int, blob: bytes
) -> None:
    """A chunk's stored bytes replaced by `blob`, whatever it holds, and its checksum recomputed."""
    part = "core" if table == "ttt_core" else "extras"
    check = chunk_checksum(game.name, depth, number, blob, part=part)
    conn.execute(
        f"update {table} set {column} = ?, checksum = ? where depth = ? and chunk = ?", (blob, check, depth, number)
    )


def zstd_bomb(declared: int) -> bytes:
    """One small zstandard frame whose header declares `declared` bytes of zeros (and holds them)."""
    writer = zstandard.ZstdCompressor().compressobj(size=declared)
    zeros = bytes(1 << 20)
    parts = [writer.compress(zeros) for _ in range(declared // len(zeros))]
    return b"".join(parts) + writer.flush()


def forge_code(path: Path, board: str, code: int, game: Game) -> tuple[int, int]:
    """The code of `board`'s class set to `code`, resealed; the class's (depth, slot)."""
    depth, slot, _ = representative(board, game)
    number, offset = divmod(slot, CHUNK_SLOTS)
    with sqlite3.connect(path) as conn:
        codes = bytearray(_chunk(conn, "ttt_core", "codes", depth, number))
        codes[offset] = code
        _reseal(conn, "ttt_core", "codes", game, depth, number, bytes(codes))
    return depth, slot


def forge_extras(path: Path, board: str, field: str, value: int, game: Game) -> None:
    """One of `board`'s class's extras (`EXTRAS_FIELDS`) set to `value`, resealed."""
    depth, slot, _ = representative(board, game)
    number, offset = divmod(slot, CHUNK_SLOTS)
    with sqlite3.connect(path) as conn:
        codes = _chunk(conn, "ttt_core", "codes", depth, number)
        ordinal = offset - codes[:offset].count(0)
        values = decode_extras(_chunk(conn, "ttt_extras", "extras", depth, number))
        values[len(EXTRAS_FIELDS) * ordinal + EXTRAS_FIELDS.index(field)] = value
        _reseal(conn, "ttt_extras", "extras", game, depth, number, values.tobytes())
