"""Writing a file whole: into a temporary file beside it, moved into place once complete, so that a
reader finds the old file or the new one, never part of one (the build's saved levels, pins, a
mirror's files and manifest)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO


def write_whole(path: Path, write: Callable[[BinaryIO], object]) -> None:
    """`write` fills `.NAME.PID.tmp` beside `path`, which then replaces `path`; nothing is left
    behind when `write` or the move fails (the error passes on)."""
    partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(partial, "wb") as stream:
            write(stream)
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


def write_bytes_whole(path: Path, data: bytes) -> None:
    """`data` written as `path`'s whole content (`write_whole`)."""
    write_whole(path, lambda stream: stream.write(data))
