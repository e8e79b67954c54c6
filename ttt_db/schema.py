"""The database schema: SQLAlchemy 2 typed models. Lists are msgpack-packed into BLOB columns.

Bump SCHEMA_VERSION whenever a table or the meaning of a column changes; a database of another
version is refused with a request to rebuild. Every table name starts with `ttt_`, so the
database can share a server schema with other applications' tables; `ttt_meta` holding a
`schema_version` row is the marker that the tables are ttt-db's own.
"""

from __future__ import annotations

from sqlalchemy import LargeBinary, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

SCHEMA_VERSION = 2
TABLE_PREFIX = "ttt_"


class Base(DeclarativeBase):
    pass


class MetaEntry(Base):
    """Key/value facts of the build; values are JSON text."""

    __tablename__ = TABLE_PREFIX + "meta"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str]


class PositionRow(Base):
    """One reachable board in the stored convention (`o` moved first)."""

    __tablename__ = TABLE_PREFIX + "positions"

    id: Mapped[int] = mapped_column(primary_key=True)  # order: depth, then board
    board: Mapped[str] = mapped_column(String(9), unique=True)
    canonical: Mapped[str] = mapped_column(String(9))
    depth: Mapped[int]
    status: Mapped[str] = mapped_column(String(7))  # playing, o, x, draw
    to_move: Mapped[str | None] = mapped_column(String(1))
    score: Mapped[int]  # from o's side: 1, 0, -1
    value: Mapped[str] = mapped_column(String(4))  # win, draw, loss for the side to move
    remoteness: Mapped[int]
    sv_score: Mapped[int]  # shortest-victory score from o's side, -2..3
    best_moves: Mapped[bytes] = mapped_column(LargeBinary)  # msgpack [move, ...]
    best_moves_shortest: Mapped[bytes] = mapped_column(LargeBinary)  # msgpack [move, ...]
    move_values: Mapped[bytes] = mapped_column(LargeBinary)  # msgpack [[move, value, remoteness]]
    playout: Mapped[bytes] = mapped_column(LargeBinary)  # msgpack [o, x, draw, denominator]
    paths: Mapped[int]


class NodeList(Base):
    """A named list of boards, msgpack-packed in the order the builder gives."""

    __tablename__ = TABLE_PREFIX + "node_lists"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    size: Mapped[int]
    boards: Mapped[bytes] = mapped_column(LargeBinary)


class DepthCount(Base):
    """Tree nodes, positions and canonical positions at one depth (moves made)."""

    __tablename__ = TABLE_PREFIX + "depth_counts"

    depth: Mapped[int] = mapped_column(primary_key=True)
    tree_nodes: Mapped[int]
    positions: Mapped[int]
    canonical_positions: Mapped[int]

