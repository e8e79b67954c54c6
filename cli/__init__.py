"""The `ttt-db` command line. `main` is the console script's entry point: it imports the app
inside a guard, so Ctrl-C while Python is still loading ends quietly with exit 130, and it turns
SIGTERM into the same unwinding as Ctrl-C (a build's temporary files are removed) with exit 143."""

from __future__ import annotations

import signal
import sys
from types import FrameType

from ttt_db.errors import StopRequested

EXIT_TERMINATED = 128 + signal.SIGTERM


def _terminate(signum: int, frame: FrameType | None) -> None:
    """SIGTERM: unwind every `finally` (temporary files, open databases, an AI's process), then
    exit 143; an AI running when it came is not blamed for it."""
    raise StopRequested(EXIT_TERMINATED)


def main() -> None:
    signal.signal(signal.SIGTERM, _terminate)
    try:
        from ttt_db.cli.app import app_for
        from ttt_db.ranked.backend import before_first_compile
    except KeyboardInterrupt:
        sys.stderr.write("\n")
        sys.exit(130)
    before_first_compile(_say_compiling)
    app_for(sys.argv[1:2])()


COMPILING = "compiling ttt-db's kernels for this machine, once (numba): this first run takes longer\n"


def _say_compiling() -> None:
    sys.stderr.write(COMPILING)
    sys.stderr.flush()
