"""How far an AI may go: its time per answer and, for a user's AI in its own process
(`ttt_db.ais.isolation`), its memory. Light to import: the CLI's options name the default."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from ttt_db.errors import InputError

DEFAULT_MEMORY_MB: Final = 2048
"""A user AI's address space, by default: far above any tic-tac-toe bot's needs, far below the machine's."""
DEFAULT_USER_ANSWER_SECONDS: Final = 60.0
"""A user AI's time per answer when none is given: generous for any bot, yet a bot that loops
forever fails at that board instead of hanging a check in silence."""
WAITING_NOTICE_SECONDS: Final = 10.0
"""How often a caller waiting on a user AI's answer hears that it is still waiting."""
DEFAULT_IMPORT_SECONDS: Final = 30.0
"""How long a user AI's process may take to start, import its module and give its first answer, by
default: starting Python is no answer of the AI's, and a bot may train when imported or on first use."""


@dataclass(frozen=True, slots=True)
class Limits:
    """Per-answer wall time (None: no limit), and for a user's AI its memory in megabytes and the
    time its process may take to import it and answer its first board (`import_seconds`)."""

    seconds: float | None = None
    memory_mb: int = DEFAULT_MEMORY_MB
    import_seconds: float = DEFAULT_IMPORT_SECONDS

    def __post_init__(self) -> None:
        for value in (self.seconds, self.import_seconds):
            if value is not None and not (0 < value < float("inf")):
                raise InputError(str(value), "a time limit must be a positive number of seconds")
        if not 16 <= self.memory_mb <= 1 << 20:
            raise InputError(str(self.memory_mb), "a memory limit is a whole number of megabytes from 16 up")
