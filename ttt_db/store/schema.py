"""The database schema: SQLAlchemy 2 typed models. A game is its ranked core, in compressed
chunks of a code byte per slot (`ttt_db.ranked.codes`), and for a game small enough its extras
(`ttt_db.store.extras`), with the counts per depth and the meta entries.

Bump SCHEMA_VERSION whenever a table or the meaning of a column changes in a way a reader of
either version would misread; a database of another version is refused with a request to rebuild.
A table that readers never need (the plain tables, `ttt_db.store.plain`: the meta's `format`
says whether a file holds them) is added without a bump, so files built before it still open.

Every table name starts with `ttt_`, so the database can share a server schema with other
applications' tables; `ttt_meta` holding the owner entry (`ttt_db.store.tables.OWNER_KEY`) is
the proof that the tables are ttt-db's own.
"""

from __future__ import annotations

from sqlalchemy import BigInteger, Integer, LargeBinary, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from ttt_db.store.tables import (
    CHUNK_HASHES,
    CORE,
    DEPTH_COUNTS,
    EXTRAS,
    META,
    NODE_LISTS_TABLE,
    POSITIONS,
    SCHEMA_VERSION,
)

__all__ = [
    "SCHEMA_VERSION",
    "Base",
    "ChunkHashPage",
    "CoreChunkRow",
    "DepthCount",
    "ExtrasChunkRow",
    "MetaEntry",
    "NodeListRow",
    "PositionRow",
]


class Base(DeclarativeBase):
    pass


class MetaEntry(Base):
    """Key/value facts of the build; values are JSON text."""

    __tablename__ = META

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str]


class DepthCount(Base):
    """Tree nodes, positions and canonical positions at one depth (moves made)."""

    __tablename__ = DEPTH_COUNTS

    depth: Mapped[int] = mapped_column(primary_key=True)
    tree_nodes: Mapped[int | None] = mapped_column(BigInteger)  # null where no extras (paths) are kept
    positions: Mapped[int] = mapped_column(BigInteger)
    canonical_positions: Mapped[int] = mapped_column(BigInteger)
    checksum: Mapped[int]  # of the four counts (ttt_db.store.checksum)


class CoreChunkRow(Base):
    """One compressed chunk of a level of the ranked core (`ttt_db.store.chunks`): a code byte per
    slot (`ttt_db.ranked.slots`), `slots` of them from slot `chunk * CHUNK_SLOTS`."""

    __tablename__ = CORE

    depth: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    chunk: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    slots: Mapped[int]
    codes: Mapped[bytes] = mapped_column(LargeBinary)  # zstandard-compressed
    checksum: Mapped[int]  # of the compressed bytes, seeded with the game, depth and chunk


class ExtrasChunkRow(Base):
    """The extras (random-play odds and paths, `ttt_db.store.extras`) of the representatives of
    one chunk of the core, `classes` of them, in slot order."""

    __tablename__ = EXTRAS

    depth: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    chunk: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    classes: Mapped[int]
    extras: Mapped[bytes] = mapped_column(LargeBinary)  # zstandard-compressed
    checksum: Mapped[int]  # of the core chunk's hash and the compressed bytes, seeded with the game, depth and chunk


class ChunkHashPage(Base):
    """A page of a level's chunk hashes (`ttt_db.store.digest`): the hashes of chunks
    `page * HASH_PAGE` onwards of the core or the extras (`part`), 16 bytes each."""

    __tablename__ = CHUNK_HASHES

    part: Mapped[str] = mapped_column(String(8), primary_key=True)
    depth: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    page: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    hashes: Mapped[bytes] = mapped_column(LargeBinary)


class PositionRow(Base):
    """A symmetry class at its canonical board, o first (`ttt_db.store.plain`): lists are
    msgpack-packed, `score` is from o's side (the first player), `value` from the side to move's
    (on a finished board, the side that would move next)."""

    __tablename__ = POSITIONS

    key: Mapped[int] = mapped_column(
        BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=False
    )
    board: Mapped[str]
    depth: Mapped[int]
    to_move: Mapped[str | None] = mapped_column(String(1))
    status: Mapped[str] = mapped_column(String(8))
    score: Mapped[int]
    value: Mapped[str] = mapped_column(String(4))
    remoteness: Mapped[int]
    orbit: Mapped[int]
    best_moves: Mapped[bytes] = mapped_column(LargeBinary)  # msgpack [cell, ...]
    best_moves_shortest: Mapped[bytes] = mapped_column(LargeBinary)  # msgpack [cell, ...]
    moves: Mapped[bytes] = mapped_column(LargeBinary)  # msgpack [[cell, value, remoteness], ...]


class NodeListRow(Base):
    """The boards of a named list at one depth, as msgpack-packed base-3 keys (`Game.key`)."""

    __tablename__ = NODE_LISTS_TABLE

    name: Mapped[str] = mapped_column(String(24), primary_key=True)
    depth: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    keys: Mapped[bytes] = mapped_column(LargeBinary)
