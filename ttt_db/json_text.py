"""JSON in and out. Out: documents as compact JSON, what `best-moves -` and `show -` print a line at
a time and what the API sends for positions. In: `read_json`, every reader of JSON from outside
(a request's body, a file, a line of a stream, a worker's reply), bounded in nesting and digits.
orjson encodes a position's many small dicts an order of magnitude faster than the standard
library's encoder (a batch's answers are mostly that encoding); the text is the
standard library's with `separators=(",", ":")`, up to how a float's shortest digits are written."""

from __future__ import annotations

import json
from typing import Any, Final

import orjson


def compact_json(document: Any) -> bytes:
    """The document as one line of JSON, UTF-8, without spaces. What orjson refuses to write (a
    lone surrogate, as JSON's `\\udcff` escape reads or an AI's error may say; an integer past 64
    bits) is written by the standard library's encoder, escaped to ASCII."""
    try:
        return orjson.dumps(document)
    except TypeError:  # orjson.JSONEncodeError
        return json.dumps(document, separators=(",", ":")).encode("ascii")


def read_json_fast(text: str | bytes) -> Any:
    """Strict JSON (RFC 8259) read by orjson, for a reader of many small records: it refuses what
    `read_json` takes beyond the standard (NaN, Infinity, lone surrogates) and reads an integer past
    64 bits as a float, so its caller reads such a record again with `read_json`."""
    return orjson.loads(text)


NUMBER_DIGITS: Final = 100
"""The most digits an integer read from JSON may have (Python refuses more than 4,300 with an error
of its own; nothing ttt-db reads needs a hundred)."""


class JSONInputError(ValueError):
    """Text from outside that `read_json` cannot take: not JSON, nested deeper than the parser
    goes, or an integer of more than NUMBER_DIGITS digits. The message says which, in words."""


def _integer(text: str) -> int:
    if len(text.lstrip("-")) > NUMBER_DIGITS:
        raise JSONInputError(f"a number of more than {NUMBER_DIGITS} digits")
    return int(text)


def read_json(text: str | bytes) -> Any:
    """JSON from a file, a request, a line of a stream or a process, parsed; JSONInputError (a
    ValueError) saying what is wrong, never a RecursionError or Python's digit-limit error."""
    try:
        return json.loads(text, parse_int=_integer)
    except JSONInputError:
        raise
    except json.JSONDecodeError as error:
        raise JSONInputError(f"not JSON ({error.msg} at line {error.lineno} column {error.colno})") from None
    except UnicodeDecodeError:
        raise JSONInputError("not JSON (not UTF-8 text)") from None
    except RecursionError:
        raise JSONInputError("nested deeper than JSON this reader takes") from None
