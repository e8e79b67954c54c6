"""The stored tables' names and the schema version, without SQLAlchemy: what a reader needs to
write its SQL (`ttt_db.store.schema` declares the same tables as SQLAlchemy models, for the builder)."""

from __future__ import annotations

from typing import Final

SCHEMA_VERSION: Final = 6
OWNER_KEY: Final = "made_by"
OWNER_VALUE: Final = "ttt-db, a solution database of m,n,k games"
"""The `ttt_meta` entry only ttt-db writes: the proof that tables named `ttt_*` are its own."""
LEGACY_OWNER_KEYS: Final = ("schema_version", "rules", "package_version", "content_sha256")
"""What a database of schema version 3 or older, written before the marker, holds instead."""
TABLE_PREFIX: Final = "ttt_"
META: Final = TABLE_PREFIX + "meta"
POSITIONS: Final = TABLE_PREFIX + "positions"
NODE_LISTS: Final = TABLE_PREFIX + "node_lists"
DEPTH_COUNTS: Final = TABLE_PREFIX + "depth_counts"
CORE: Final = TABLE_PREFIX + "core"
POSITION_COLUMNS: Final = (
    "key",
    "depth",
    "status",
    "to_move",
    "score",
    "value",
    "remoteness",
    "sv_score",
    "best_moves",
    "best_moves_shortest",
    "move_values",
    "o_wins",
    "x_wins",
    "draws",
    "paths",
    "orbit",
    "moves_check",
    "row_check",
)
"""The columns of `ttt_positions` in table order (the order the content digest reads them in)."""
CORE_COLUMNS: Final = ("depth", "chunk", "slots", "codes", "checksum")
"""The columns of `ttt_core` in table order."""
