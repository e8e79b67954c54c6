"""How far an AI may go: its time per answer and, for a user's AI in its own process
(`ttt_db.ais.isolation`), its memory. Light to import: the CLI's options name the default."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from ttt_db.errors import InputError

DEFAULT_MEMORY_MB: Final = 2048
"""A user AI's address space, by default: far above any tic-tac-toe bot's needs, far below the machine's."""


@dataclass(frozen=True, slots=True)
class Limits:
    """Per-answer wall time (None: no limit) and a user AI's memory, in megabytes."""

    seconds: float | None = None
    memory_mb: int = DEFAULT_MEMORY_MB

    def __post_init__(self) -> None:
        if self.seconds is not None and not (0 < self.seconds < float("inf")):
            raise InputError(str(self.seconds), "a time limit must be a positive number of seconds")
        if not 16 <= self.memory_mb <= 1 << 20:
            raise InputError(str(self.memory_mb), "a memory limit is a whole number of megabytes from 16 up")
