"""The `ttt-db` command line. `main` is the console script's entry point: it imports the app
inside a guard, so Ctrl-C while Python is still loading ends quietly with exit 130."""

from __future__ import annotations

import sys


def main() -> None:
    try:
        from cli.app import app
    except KeyboardInterrupt:
        sys.stderr.write("\n")
        sys.exit(130)
    app()
