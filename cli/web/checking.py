"""The server's background check: `run_checks` in a process of its own, so that however long a
check runs, the server's threads never run it (positions keep answering at once), its memory is
bounded (`CHECK_MEMORY_MB`, the process's own limit), and a cancel ends it at once (the process
is killed). The process is spawned, not forked: nothing of the server's threads is copied into it.
It sends its progress a few times a second and, at the end, the report itself."""

from __future__ import annotations

import multiprocessing
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

    from ttt_db.checks.report import CheckReport
    from ttt_db.game.definition import Game
    from ttt_db.store.location import DatabaseLocation

CHECK_MEMORY_MB: Final = 2048
"""The most memory a background check's process may take; past it the check fails, saying so."""
PAGE_FAILURES_KEPT: Final = 1000
"""Strong failures a background check keeps for the page (the counts stay exact)."""
PROGRESS_SECONDS: Final = 0.25
REAP_SECONDS: Final = 10
"""How long a check's process has to end once it has sent its report; then it is killed."""


@dataclass
class Progress:
    """Where a background check stands: `phase` is "starting", "weak" or "strong"; `done` counts
    boards examined (weak) or asked (strong), of `total` when known."""

    phase: str = "starting"
    done: int = 0
    total: int | None = None
    phase_started: float = 0.0


class BackgroundCheck:
    """One AI's checks in a process of its own; `on_done(report)` is called from a thread of this
    process when it finishes, `error` set when it fails, `cancel()` kills it."""

    def __init__(
        self,
        ai: str,
        location: DatabaseLocation,
        game: Game,
        on_done: Any,
        memory_mb: int = CHECK_MEMORY_MB,
        digest: str | None = None,
    ) -> None:
        """`digest`: the pin the server's own handle holds the database to, held in the check's too."""
        self.ai = ai
        self.error: str | None = None
        self.running = True
        self.started = time.monotonic()
        self.progress = Progress(phase_started=self.started)
        self._on_done = on_done
        context = multiprocessing.get_context("spawn")
        receiving, sending = context.Pipe(duplex=False)
        self._process = context.Process(
            target=_check_in_process,
            args=(ai, location, game.name, sending, memory_mb, digest),
            name=f"ttt-db check {ai}",
            daemon=True,
        )
        self._process.start()
        sending.close()
        self._receiving = receiving
        threading.Thread(target=self._follow, name=f"following the check of {ai}", daemon=True).start()

    def _follow(self) -> None:
        """Read the process's messages until its report, its failure or its end, then reap it (a
        finished process not waited for stays a zombie, `<defunct>`, beside the server)."""
        try:
            self._read_messages()
        finally:
            self._receiving.close()
            self._process.join(timeout=REAP_SECONDS)
            if self._process.is_alive():  # it sent its last word but does not end
                self._process.kill()
                self._process.join()

    def _read_messages(self) -> None:
        while True:
            try:
                kind, *payload = self._receiving.recv()
            except (EOFError, OSError):
                if self.running:
                    code = self._process.exitcode
                    self.error = "it was cancelled" if code is not None and code < 0 else f"its process ended ({code})"
                    self.running = False
                return
            if kind == "progress":
                phase, done, total = payload
                if phase != self.progress.phase:
                    self.progress = Progress(phase, done, total, time.monotonic())
                else:
                    self.progress.done, self.progress.total = done, total
            elif kind == "failed":
                self.error = payload[0]
                self.running = False
                return
            else:
                self.running = False
                self._on_done(payload[0])
                return

    def cancel(self) -> None:
        """Kill the check's process: nothing of it is kept."""
        self.running = False
        self.error = "it was cancelled"
        if self._process.is_alive():
            self._process.kill()
        self._process.join(timeout=5)

    def status(self) -> dict[str, Any]:
        """The check's state for the page: its phase, its count, the total and the time left
        when known (the strong check's, at its rate so far), and the time it has run."""
        now = time.monotonic()
        progress = self.progress
        eta = None
        if progress.phase == "strong" and progress.total and progress.done:
            rate = progress.done / max(now - progress.phase_started, 1e-9)
            eta = round((progress.total - progress.done) / rate, 1)
        return {
            "ai": self.ai,
            "status": "running",
            "phase": progress.phase,
            "done": progress.done,
            "total": progress.total,
            "elapsed_seconds": round(now - self.started, 1),
            "eta_seconds": eta,
        }


def _check_in_process(
    ai: str, location: DatabaseLocation, game_name: str, sending: Connection, memory_mb: int, digest: str | None
) -> None:
    """The background check's process: bound its memory, open the database, run the checks and
    send their progress, then the report (or what went wrong)."""
    import os
    import resource

    os.environ["OPENBLAS_NUM_THREADS"] = os.environ["OMP_NUM_THREADS"] = "1"  # no thread pools to reserve memory
    limit = memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:
        from ttt_db.ais.registry import load_ai
        from ttt_db.checks.budget import CheckBudget
        from ttt_db.checks.report import run_checks
        from ttt_db.ranked.slots import game_from_name
        from ttt_db.store.database import open_database

        said = 0.0

        def tell(phase: str, done: int, total: int | None) -> None:
            nonlocal said
            now = time.monotonic()
            if now - said >= PROGRESS_SECONDS or done == total:
                said = now
                sending.send(("progress", phase, done, total))

        game = game_from_name(game_name)
        with open_database(location, game=game, digest=digest) as database:
            named = load_ai(ai, lambda: database, game)
            report: CheckReport = run_checks(
                named,
                database,
                progress=lambda done, total: tell("strong", done, total),
                weak_progress=lambda done: tell("weak", done, None),
                budget=CheckBudget(failures_kept=PAGE_FAILURES_KEPT),
            )
        sending.send(("done", report))
    except MemoryError:
        sending.send(("failed", f"it needed more than the {memory_mb:,} MB a check may take on the server"))
    except Exception as error:  # reported to the page that asks next, never lost in a process
        sending.send(("failed", f"{type(error).__name__}: {error}"))
    finally:
        sending.close()
