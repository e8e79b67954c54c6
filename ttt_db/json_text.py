"""Documents as compact JSON: what `best-moves -` and `show -` print a line at a time and what the
API sends for positions. orjson encodes a position's many small dicts an order of magnitude faster
than the standard library's encoder (a batch's answers are mostly that encoding); the text is the
standard library's with `separators=(",", ":")`, up to how a float's shortest digits are written."""

from __future__ import annotations

from typing import Any

import orjson


def compact_json(document: Any) -> bytes:
    """The document as one line of JSON, UTF-8, without spaces."""
    return orjson.dumps(document)
