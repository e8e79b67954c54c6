"""The stored tables' names and the schema version, without SQLAlchemy: what a reader needs to
write its SQL (`ttt_db.store.schema` declares the same tables as SQLAlchemy models, for the builder)."""

from __future__ import annotations

from typing import Final

SCHEMA_VERSION: Final = 9
OWNER_KEY: Final = "made_by"
OWNER_VALUE: Final = "ttt-db, a solution database of m,n,k games"
"""The `ttt_meta` entry only ttt-db writes: the proof that tables named `ttt_*` are its own."""
LEGACY_OWNER_KEYS: Final = ("schema_version", "rules", "package_version", "content_sha256")
"""What a database of schema version 3 or older, written before the marker, holds instead."""
TABLE_PREFIX: Final = "ttt_"
META: Final = TABLE_PREFIX + "meta"
DEPTH_COUNTS: Final = TABLE_PREFIX + "depth_counts"
CORE: Final = TABLE_PREFIX + "core"
EXTRAS: Final = TABLE_PREFIX + "extras"
CHUNK_HASHES: Final = TABLE_PREFIX + "chunk_hashes"
POSITIONS: Final = TABLE_PREFIX + "positions"
NODE_LISTS_TABLE: Final = TABLE_PREFIX + "node_lists"
PLAIN_KEY: Final = "plain_tables"
"""The meta entry: {table: {"rows": count, "hash": hex}} for each plain table written."""
LEGACY_TABLES: Final = (POSITIONS, NODE_LISTS_TABLE)
"""Tables that schema 6 and older had under the names the plain tables took again (with other
columns), dropped when a server's database of an older schema is rebuilt."""
CORE_COLUMNS: Final = ("depth", "chunk", "slots", "codes", "checksum")
"""The columns of `ttt_core` in table order."""
EXTRAS_COLUMNS: Final = ("depth", "chunk", "classes", "extras", "checksum")
"""The columns of `ttt_extras` in table order."""
HASH_COLUMNS: Final = ("part", "depth", "page", "hashes")
"""The columns of `ttt_chunk_hashes` in table order."""
POSITION_COLUMNS: Final = (
    "key",
    "board",
    "depth",
    "to_move",
    "status",
    "score",
    "value",
    "remoteness",
    "orbit",
    "best_moves",
    "best_moves_shortest",
    "moves",
)
"""The columns of `ttt_positions` in table order (`ttt_db.store.plain`)."""
NODE_LIST_COLUMNS: Final = ("name", "depth", "keys")
"""The columns of `ttt_node_lists` in table order."""
