"""The first use of a compiled kernel (issue 56): a command line says once, on stderr, that it is
compiling ttt-db's kernels for this machine; a kernel numba's cache already holds says nothing."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType

import pytest

pytest.importorskip("numba")

CALL_ONE_KERNEL = (
    "from ttt_db.ranked.backend import before_first_compile, compiled\n"
    "before_first_compile(lambda: print('notice'))\n"
    "kernels = compiled().run\n"
    "print(kernels.next_set(5), kernels.next_set(6))\n"  # one kernel, called twice: one notice at most
)


def _run(cache: Path) -> list[str]:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    done = subprocess.run([sys.executable, "-c", CALL_ONE_KERNEL], env=env, capture_output=True, text=True, check=True)
    return done.stdout.splitlines()


def test_a_kernel_not_yet_compiled_is_announced_once_and_a_cached_one_not(tmp_path: Path) -> None:
    cache = tmp_path / "numba-cache"
    assert _run(cache) == ["notice", "6 9"]  # compiled here, first: announced before it is compiled
    assert _run(cache) == ["6 9"]  # loaded from numba's cache: nothing to say


AFTER_A_COMMAND = (
    "import sys\n"
    "from ttt_db.cli import main\n"
    "from ttt_db.ranked.backend import compiled\n"
    "sys.argv = ['ttt-db', 'ais']\n"
    "try:\n"
    "    main()\n"
    "except SystemExit:\n"
    "    pass\n"
    "compiled().run.next_set(5)\n"  # as a command's first kernel: after `main` set the notice up
)


def test_the_command_line_says_it_on_stderr(tmp_path: Path) -> None:
    from ttt_db.cli import COMPILING

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    args = [sys.executable, "-c", AFTER_A_COMMAND]
    done = subprocess.run(args, env=env, capture_output=True, text=True, check=True)
    assert done.stderr == COMPILING
    again = subprocess.run(args, env=env, capture_output=True, text=True, check=True)
    assert again.stderr == ""
    assert "perfect" in done.stdout and again.stdout == done.stdout  # the command itself as ever


class _NotYetCompiled:
    """A dispatcher numba has not compiled, whose cache index is read only once `meeting` lets
    every caller through: the threads asking for it are all past the check for a notice first."""

    signatures: list[object] = []

    def __init__(self, meeting: threading.Barrier) -> None:
        self._cache = self
        self._cache_file = self
        self.meeting = meeting

    def _load_index(self) -> dict[object, object]:
        self.meeting.wait(timeout=60)
        return {}


def test_threads_meeting_their_first_kernel_at_once_send_one_notice(monkeypatch: pytest.MonkeyPatch) -> None:
    from ttt_db.ranked import backend

    threads = 4
    source = ModuleType("kernels_of_a_test")
    source.step = _NotYetCompiled(threading.Barrier(threads))  # type: ignore[attr-defined]
    monkeypatch.setattr(backend, "_NOTICES", [])
    notices: list[str] = []
    backend.before_first_compile(lambda: notices.append("compiling"))
    kernels = backend.Kernels([source], compiled=True)
    with ThreadPoolExecutor(threads) as pool:
        found = list(pool.map(lambda _: kernels.step, range(threads)))
    assert found == [source.step] * threads  # type: ignore[attr-defined]
    assert notices == ["compiling"]
