"""The database schema: SQLAlchemy 2 typed models. Sets of moves are bit masks, per-move values a
byte per cell, node lists compressed key differences (`ttt_db.store.encoding`).

Bump SCHEMA_VERSION whenever a table or the meaning of a column changes; a database of another
version is refused with a request to rebuild. Every table name starts with `ttt_`, so the
database can share a server schema with other applications' tables; `ttt_meta` holding the
owner entry (`ttt_db.store.tables.OWNER_KEY`) is the proof that the tables are ttt-db's own.
"""

from __future__ import annotations

from sqlalchemy import BigInteger, LargeBinary, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from ttt_db.store.tables import CORE, DEPTH_COUNTS, META, NODE_LISTS, POSITIONS, SCHEMA_VERSION

__all__ = ["SCHEMA_VERSION", "Base", "CoreChunkRow", "DepthCount", "MetaEntry", "NodeList", "PositionRow"]


class Base(DeclarativeBase):
    pass


class MetaEntry(Base):
    """Key/value facts of the build; values are JSON text."""

    __tablename__ = META

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str]


class PositionRow(Base):
    """One canonical board (the smallest of its symmetric images) in the stored convention
    (`o` moved first); every other orientation is answered by transforming this row."""

    __tablename__ = POSITIONS

    key: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)  # the board in base 3
    depth: Mapped[int]
    status: Mapped[str] = mapped_column(String(7))  # playing, o, x, draw
    to_move: Mapped[str | None] = mapped_column(String(1))
    score: Mapped[int]  # from o's side: 1, 0, -1
    value: Mapped[str] = mapped_column(String(4))  # win, draw, loss for the side to move
    remoteness: Mapped[int]
    sv_score: Mapped[int]  # shortest-victory score from o's side
    best_moves: Mapped[int]  # bit mask: bit c set when cell c is a best move (ttt_db.store.encoding)
    best_moves_shortest: Mapped[int]  # bit mask of the moves that win fastest or lose slowest
    move_values: Mapped[bytes] = mapped_column(LargeBinary)  # a byte per cell: value and remoteness after it
    o_wins: Mapped[int] = mapped_column(BigInteger)  # move orders of uniformly random play o wins, of
    x_wins: Mapped[int] = mapped_column(BigInteger)  # the (cells - depth)! there are
    draws: Mapped[int] = mapped_column(BigInteger)
    paths: Mapped[int] = mapped_column(BigInteger)  # move sequences reaching any one image
    orbit: Mapped[int]  # how many distinct boards the symmetries make of it
    moves_check: Mapped[int]  # checksums (ttt_db.store.checksum): of key, status and best moves,
    row_check: Mapped[int]  # and of every column


class NodeList(Base):
    """A named list of board keys in (depth, key) order, encoded (ttt_db.store.encoding)."""

    __tablename__ = NODE_LISTS

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    size: Mapped[int]
    boards: Mapped[bytes] = mapped_column(LargeBinary)
    checksum: Mapped[int]  # of name, size and boards (ttt_db.store.checksum)


class DepthCount(Base):
    """Tree nodes, positions and canonical positions at one depth (moves made)."""

    __tablename__ = DEPTH_COUNTS

    depth: Mapped[int] = mapped_column(primary_key=True)
    tree_nodes: Mapped[int | None] = mapped_column(BigInteger)  # null where no rows are stored (over 16 cells)
    positions: Mapped[int]
    canonical_positions: Mapped[int]
    checksum: Mapped[int]  # of the four counts (ttt_db.store.checksum)


class CoreChunkRow(Base):
    """One compressed chunk of a level of the ranked core (`ttt_db.store.codes`): a code byte per
    slot (`ttt_db.game.slots`), `slots` of them from slot `chunk * CHUNK_SLOTS`."""

    __tablename__ = CORE

    depth: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    chunk: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    slots: Mapped[int]
    codes: Mapped[bytes] = mapped_column(LargeBinary)  # zstandard-compressed
    checksum: Mapped[int]  # of the compressed bytes, seeded with the game, depth and chunk
