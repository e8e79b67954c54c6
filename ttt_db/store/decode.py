"""Decoding stored content defensively: every value read from the database is checked against
what the build can have written, so a damaged file raises `DatabaseDamagedError` instead of
crashing or answering wrongly (the chunks are checked by `ttt_db.store.core`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ttt_db.errors import DatabaseDamagedError


def whole_number(value: object, what: str, where: str, low: int, high: int) -> int:
    if type(value) is not int or not low <= value <= high:
        raise DatabaseDamagedError(f"{what} is {value!r}, not a whole number from {low} to {high}", where)
    return value


def require_keys(meta: dict[str, Any], keys: Sequence[str], where: str) -> None:
    for key in keys:
        if key not in meta:
            raise DatabaseDamagedError(f"meta entry {key!r} is missing", where)
