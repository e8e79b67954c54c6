"""Edits to a built database file as a careful forger makes them: a code of the core or a class's
extras changed, and everything above it resealed with the library's own functions (the chunk's
checksum, its hash in its page, the page's hash in the meta, the content digest, the meta's
checksum), so that only what lies behind them (the rules, the children's codes, verify, a pinned
digest) can refuse it."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import zstandard

from ttt_db.game.definition import Game
from ttt_db.ranked.slots import representative
from ttt_db.store.checksum import META_CHECK_KEY, meta_checksum
from ttt_db.store.chunks import CHUNK_SLOTS, chunk_checksum
from ttt_db.store.digest import (
    DIGEST_KEY,
    HASH_BYTES,
    HASH_PAGE,
    HASHES_KEY,
    chunk_hash,
    content_digest,
    extras_checksum,
    page_hash,
)
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
    """A chunk's stored bytes replaced by `blob`, whatever it holds, and everything above resealed
    (an extras chunk's checksum bound to its core chunk's hash, as the writer binds it; the core's
    extras left as they are)."""
    part = "core" if table == "ttt_core" else "extras"
    if part == "core":
        check = chunk_checksum(game.name, depth, number, blob)
    else:
        check = extras_checksum(game.name, depth, number, blob, stored_hash(conn, "core", depth, number))
    conn.execute(
        f"update {table} set {column} = ?, checksum = ? where depth = ? and chunk = ?", (blob, check, depth, number)
    )
    unit = "slots" if part == "core" else "classes"
    count = conn.execute(f"select {unit} from {table} where depth = ? and chunk = ?", (depth, number)).fetchone()[0]
    reseal_hash(conn, part, depth, number, chunk_hash(game.name, part, (depth, number, count, blob, check)))


def stored_hash(conn: sqlite3.Connection, part: str, depth: int, number: int) -> bytes:
    page, index = divmod(number, HASH_PAGE)
    query = "select hashes from ttt_chunk_hashes where part = ? and depth = ? and page = ?"
    hashes = conn.execute(query, (part, depth, page)).fetchone()[0]
    return bytes(hashes[index * HASH_BYTES : (index + 1) * HASH_BYTES])


def reseal_hash(conn: sqlite3.Connection, part: str, depth: int, number: int, new_hash: bytes) -> None:
    """A chunk's hash in its page replaced, the page's hash in the meta, the digest and the meta's
    checksum recomputed."""
    page, index = divmod(number, HASH_PAGE)
    query = "select hashes from ttt_chunk_hashes where part = ? and depth = ? and page = ?"
    hashes = bytearray(conn.execute(query, (part, depth, page)).fetchone()[0])
    hashes[index * HASH_BYTES : (index + 1) * HASH_BYTES] = new_hash
    conn.execute(
        "update ttt_chunk_hashes set hashes = ? where part = ? and depth = ? and page = ?",
        (bytes(hashes), part, depth, page),
    )
    entries = dict(conn.execute("select key, value from ttt_meta").fetchall())
    pages = json.loads(entries[HASHES_KEY])
    pages[part][depth][page] = page_hash(part, depth, page, bytes(hashes))
    entries[HASHES_KEY] = json.dumps(pages, sort_keys=True)
    reseal_meta(conn, entries)


def reseal_meta(conn: sqlite3.Connection, entries: dict[str, str]) -> None:
    """The meta entries written as given (a new one added), with the content digest and the meta
    checksum recomputed."""
    depth_rows = conn.execute(
        "select depth, tree_nodes, positions, canonical_positions from ttt_depth_counts order by depth"
    ).fetchall()
    entries[DIGEST_KEY] = json.dumps(content_digest(entries, depth_rows))
    entries[META_CHECK_KEY] = json.dumps(meta_checksum(entries))
    conn.executemany("insert or replace into ttt_meta (key, value) values (?, ?)", list(entries.items()))


def zstd_bomb(declared: int) -> bytes:
    """One small zstandard frame whose header declares `declared` bytes of zeros (and holds them)."""
    writer = zstandard.ZstdCompressor().compressobj(size=declared)
    zeros = bytes(1 << 20)
    parts = [writer.compress(zeros) for _ in range(declared // len(zeros))]
    return b"".join(parts) + writer.flush()


def forge_code(path: Path, board: str, code: int, game: Game, *, bind_extras: bool = True) -> tuple[int, int]:
    """The code of `board`'s class set to `code`, resealed, and (`bind_extras`) the extras chunk of
    the same place bound again to the forged core chunk; the class's (depth, slot)."""
    depth, slot, _ = representative(board, game)
    number, offset = divmod(slot, CHUNK_SLOTS)
    with sqlite3.connect(path) as conn:
        codes = bytearray(_chunk(conn, "ttt_core", "codes", depth, number))
        codes[offset] = code
        _reseal(conn, "ttt_core", "codes", game, depth, number, bytes(codes))
        query = "select extras from ttt_extras where depth = ? and chunk = ?"
        extras = conn.execute(query, (depth, number)).fetchone()
        if bind_extras and extras is not None:
            reseal_blob(conn, "ttt_extras", "extras", game, depth, number, extras[0])
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
