"""A command's own streams: stdin lines read as they arrive (`ArrivedLines`), JSON and text on
stdout (`print_json`, `write_text_output`), and what user AIs print kept off stdout."""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import typer

if TYPE_CHECKING:
    pass


def ai_output_to_stderr() -> contextlib.AbstractContextManager[Any]:
    """While AIs (foreign code) run, what they print goes to stderr: stdout is the command's."""
    return contextlib.redirect_stdout(sys.stderr)


def say_waiting(line: str) -> None:
    """What a caller waiting on a user AI's answer is told (`contained_ai`'s `waiting`), on stderr."""
    typer.echo(line, err=True)


def write_text_output(text: str, output: Path | None, written: str) -> None:
    """`text` to stdout, or to `output` (its folder made if missing, as for `--db`), then
    "wrote {written} to {output}" on stderr."""
    if output is None:
        sys.stdout.write(text)
        return
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(text, encoding="utf-8")
    typer.echo(f"wrote {written} to {output}", err=True)


LINE_BYTES: Final = 1 << 16
"""The most bytes of a line of input that `ArrivedLines` keeps (a board or a record is far less)."""


class ArrivedLines:
    """The non-blank lines of a byte stream, stripped, in groups of what has arrived together: a
    pipe written a line at a time is answered a line at a time, a file many lines at once. Bytes
    that are not UTF-8 are replaced (the line is then refused as a board, quoted). `more_arrived()`:
    whether more can be read without waiting (never, for a stream that is not a file: a test's is
    read whole at once). A line is kept to its first LINE_BYTES bytes (the rest is skipped as it
    comes, so that one endless line costs neither memory nor time): it is then refused, quoted cut."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        try:
            self.descriptor: int | None = stream.fileno()
        except (OSError, ValueError, AttributeError):
            self.descriptor = None

    def __iter__(self) -> Iterator[list[str]]:
        descriptor, pending = self.descriptor, b""
        while data := self.stream.read() if descriptor is None else _arrived(descriptor):
            *complete, rest = data.split(b"\n")
            if complete:
                complete[0], pending = pending + complete[0][: LINE_BYTES - len(pending)], b""
            if len(pending) < LINE_BYTES:  # a line past LINE_BYTES: the rest of it skipped as it comes
                pending += rest[: LINE_BYTES - len(pending)]
            lines = [text for line in complete if (text := line[:LINE_BYTES].decode("utf-8", "replace").strip())]
            if lines:
                yield lines
            if descriptor is None:
                break
        if rest_text := pending.decode("utf-8", "replace").strip():
            yield [rest_text]

    def more_arrived(self) -> bool:
        return self.descriptor is not None and _readable(self.descriptor)


def _arrived(descriptor: int, most: int = 1 << 18) -> bytes:
    """What a descriptor has: waits for some bytes, then takes what else is there already (up to
    about `most`) without waiting again. b"" at its end."""
    data = os.read(descriptor, 1 << 16)
    while data and len(data) < most and _readable(descriptor):
        more = os.read(descriptor, 1 << 16)
        if not more:
            break  # its end: the next read says so
        data += more
    return data


def _readable(descriptor: int) -> bool:
    """Whether a read of the descriptor would not wait; False for one select cannot watch (its
    reader then takes what each read gives, waiting as it must)."""
    import select

    try:
        return bool(select.select([descriptor], [], [], 0)[0])
    except (OSError, ValueError):
        return False


def print_json(document: Any) -> None:
    """The document on stdout, written as it is encoded (a check's thousands of failures are
    never one string in memory)."""
    for chunk in json.JSONEncoder(indent=2).iterencode(document):
        sys.stdout.write(chunk)
    sys.stdout.write("\n")
    sys.stdout.flush()
