"""How far a check may go: `CheckBudget`, spent as the check asks boards, and read between
batches so that a check stops with an honest partial answer rather than running on."""

from __future__ import annotations

import threading
import time
from typing import Final

STOP_REASONS: Final = ("max_boards", "deadline", "cancelled")
"""Why a check ended before it had seen every board (`CheckBudget.stop_reason`)."""
FAILURES_KEPT: Final = 10_000
"""Strong failures kept with their boards and move values, the shallowest first; the counts are exact."""


class CheckBudget:
    """At most `max_boards` boards asked (strong check) or examined (weak check), in all; at most
    `seconds` of wall time from `start`; stopped at once when `cancelled` is set. `failures_kept`
    bounds the failures a report holds, whatever their number."""

    def __init__(
        self,
        *,
        max_boards: int | None = None,
        seconds: float | None = None,
        cancelled: threading.Event | None = None,
        failures_kept: int = FAILURES_KEPT,
    ) -> None:
        if max_boards is not None and max_boards < 0:
            raise ValueError(f"max_boards is {max_boards}; it is 0 or more")
        if seconds is not None and seconds <= 0:
            raise ValueError(f"seconds is {seconds}; it is more than 0")
        self.max_boards = max_boards
        self.seconds = seconds
        self.cancelled = cancelled
        self.failures_kept = failures_kept
        self.spent = 0
        self._deadline: float | None = None
        self._whole: CheckBudget | None = None  # the budget this one is a share of

    @property
    def bounded(self) -> bool:
        """Whether it bounds the boards or the time (a cancel alone bounds neither)."""
        return self.max_boards is not None or self.seconds is not None

    def start(self) -> None:
        """Start the clock (a check calls it as it begins)."""
        if self.seconds is not None and self._deadline is None:
            self._deadline = time.monotonic() + self.seconds

    def left(self) -> int | None:
        """Boards that may still be asked; None when unbounded."""
        return None if self.max_boards is None else max(0, self.max_boards - self.spent)

    def spend(self, boards: int) -> None:
        self.spent += boards
        if self._whole is not None:
            self._whole.spend(boards)

    def share(self, parts: int) -> CheckBudget:
        """A budget for the first of `parts` equal parts of the work left (the weak check's o side of
        two: x gets what o leaves): its share of the boards and of the time left, the same cancel;
        what it spends is spent here too."""
        self.start()
        left = self.left()
        part = CheckBudget(
            max_boards=None if left is None else left // parts,
            cancelled=self.cancelled,
            failures_kept=self.failures_kept,
        )
        if self._deadline is not None:
            now = time.monotonic()
            part.seconds = self.seconds
            part._deadline = now + max(self._deadline - now, 0.0) / parts
        part._whole = self
        return part

    def stop_reason(self) -> str | None:
        """Why the check must stop now (one of STOP_REASONS), or None."""
        if self.cancelled is not None and self.cancelled.is_set():
            return "cancelled"
        if self._deadline is not None and time.monotonic() >= self._deadline:
            return "deadline"
        if self.max_boards is not None and self.spent >= self.max_boards:
            return "max_boards"
        return None
