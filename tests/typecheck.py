"""mypy (strict, as pyproject.toml configures it) over the package as it installs.

The source folders builder/ and cli/ install as ttt_db.build, ttt_db.cli and ttt_db.web
(pyproject.toml's package-dir), a mapping mypy cannot follow from the source tree. This lays the
installed layout out as links in a temporary folder, runs mypy on the package `ttt_db` there, and
prints its findings with the source paths. Exit status: mypy's.

    python tests/typecheck.py
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def layout(target: Path) -> dict[str, str]:
    """The installed layout of ttt_db under `target`, a link per source file (each file belongs to
    the package whose source folder holds it most closely); each installed folder's source folder."""
    with open(ROOT / "pyproject.toml", "rb") as stream:
        mapped: dict[str, str] = tomllib.load(stream)["tool"]["setuptools"]["package-dir"]
    folders = {"ttt_db": "ttt_db"} | mapped
    closest_first = sorted(folders.items(), key=lambda item: -len(item[1]))
    for folder in {folder.split("/")[0] for folder in folders.values()}:
        for path in (ROOT / folder).rglob("*.py"):
            relative = path.relative_to(ROOT).as_posix()
            package, source = next((p, f) for p, f in closest_first if relative.startswith(f + "/"))
            link = target.joinpath(*package.split("."), relative[len(source) + 1 :])
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(path)
    return {"/".join(package.split(".")) + "/": folder + "/" for package, folder in folders.items()}


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="ttt-db-typecheck-") as scratch:
        folders = layout(Path(scratch))
        completed = subprocess.run(
            [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), "-p", "ttt_db"],
            cwd=scratch,
            capture_output=True,
            text=True,
            check=False,
        )
    longest_first = sorted(folders.items(), key=lambda item: -len(item[0]))
    for line in (completed.stdout + completed.stderr).splitlines():
        for installed, source in longest_first:
            if line.startswith(installed):
                line = source + line[len(installed) :]
                break
        print(re.sub(re.escape(scratch) + "/?", "", line))
    return completed.returncode


if __name__ == "__main__":
    sys.exit(main())
