"""A plug-in AI can fail however it likes; the check reports it at that board, and stdout stays
the command's own. A library bug is exit 3, not bad input."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

HOSTILE = '''
import sys

def exits(board):
    sys.exit(3)

def generator_fails(board):
    yield board.index(".")
    raise ValueError("half way")

class Answer:
    def __iter__(self):
        raise LookupError("cannot iterate")

def iteration_fails(board):
    return Answer()

def chatty(board):
    print("thinking about", board)
    return [board.index(".")]

def millions(board):
    return range(10**9)

def hangs(board):
    if board.count(".") < 8:
        while True:
            pass
    return [4]

def blank_doc(board):
    """   """
    return [board.index(".")]

def odd_doc(board):
    return [board.index(".")]
odd_doc.__doc__ = 42

def generator_exit(board):
    raise GeneratorExit("stop")

def interrupts(board):
    raise KeyboardInterrupt

def catches_the_timeout(board):
    while True:
        try:
            while True:
                pass
        except BaseException:
            pass

def allocates(board):
    hoard = []
    while True:
        hoard.append(bytearray(50_000_000))

def writes_to_fd_1(board):
    import os
    os.write(1, b"not json\\n")
    return [board.index(".")]

def dies(board):
    import os
    os._exit(0)
'''


@pytest.fixture
def hostile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    source = tmp_path / "hostile_bots.py"
    source.write_text(HOSTILE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "hostile_bots", raising=False)  # this test's copy, not an earlier one
    yield source
    sys.modules.pop("hostile_bots", None)


def _line(start: str) -> int:
    """The line of the hostile module that starts with `start`."""
    return next(number for number, line in enumerate(HOSTILE.splitlines(), 1) if line.startswith(start))


def _weak_o(run, spec: str, *options: str) -> dict[str, object]:
    result = run("check", spec, "--weak", "--json", *options)
    assert result.exit_code == 1, result.output
    return json.loads(result.stdout)["weak"]["o"]["counterexample"]


@pytest.mark.parametrize(
    ("function", "error", "line"),
    [
        ("exits", "the AI called sys.exit(3)", 5),
        ("generator_fails", "the AI raised while its answer was read: ValueError: half way", 9),
        ("iteration_fails", "the AI raised while its answer was read: LookupError: cannot iterate", 13),
        ("generator_exit", "the AI raised GeneratorExit: stop", "    raise GeneratorExit"),
        ("interrupts", "the AI raised KeyboardInterrupt", "    raise KeyboardInterrupt"),  # not the user's Ctrl-C
        ("dies", "the AI's process exited with code 0", None),
    ],
)
def test_a_failing_ai_is_reported_at_the_empty_board(
    run, hostile: Path, function: str, error: str, line: int | str | None
) -> None:
    example = _weak_o(run, f"hostile_bots:{function}")
    where = f"{hostile}:{_line(line) if isinstance(line, str) else line}" if line else None
    assert example == {"side": "o", "moves": [], "board": ".........", "error": error, "where": where}


def test_an_answer_of_millions_of_moves_stops_at_the_first_bad_one(run, hostile: Path) -> None:
    example = _weak_o(run, "hostile_bots:millions")
    assert example["error"] == "the AI answered 9, off the board (cells are 0-8)"


def test_an_ai_that_never_returns_is_stopped_by_timeout(run, hostile: Path) -> None:
    example = _weak_o(run, "hostile_bots:hangs", "--timeout", "0.2")
    assert example == {
        "side": "o",
        "moves": [4, 0],
        "board": "x...o....",
        "error": "the AI did not answer within 0.2 s",
        "where": None,
    }


def test_what_an_ai_prints_goes_to_stderr(run, hostile: Path) -> None:
    result = run("check", "hostile_bots:chatty", "--weak", "--json")
    assert json.loads(result.stdout)["ai"] == "hostile_bots:chatty"  # stdout is one JSON document
    assert "thinking about ........." in result.stderr


def test_an_ai_that_catches_its_timeout_is_stopped_all_the_same(run, hostile: Path) -> None:
    """It catches the alarm of its process's own timer and loops on; its process is killed."""
    # the import's time is generous (a worker starts slowly on a busy machine): the first answer never comes
    example = _weak_o(run, "hostile_bots:catches_the_timeout", "--timeout", "0.3", "--import-timeout", "3")
    assert example["error"] == (
        "the AI's import and first answer took longer than 3.3 s, and it ignored the timer (its process was restarted)"
    )


def test_an_ai_that_allocates_without_end_fails_at_its_memory_limit(run, hostile: Path) -> None:
    """It reached 6 GB despite --timeout 1; now its process has --memory megabytes."""
    example = _weak_o(run, "hostile_bots:allocates", "--memory", "300")
    assert example["error"] == "the AI raised MemoryError"
    assert example["where"] == f"{hostile}:{_line('        hoard.append(bytearray(50_000_000))')}"


def test_what_an_ai_writes_to_file_descriptor_1_goes_to_stderr(run, hostile: Path) -> None:
    result = run("check", "hostile_bots:writes_to_fd_1", "--weak", "--json")
    assert json.loads(result.stdout)["ai"] == "hostile_bots:writes_to_fd_1"
    assert "not json" in result.stderr


def test_the_users_ctrl_c_stops_a_check_of_an_ai_that_ignores_it(hostile: Path, db_path: Path) -> None:
    """Ctrl-C reaches every process of the terminal's group: ttt-db stops (exit 130) and stops
    the AI's process, which ignores the signal, looping in its `except BaseException`."""
    import signal
    import time

    script = shutil.which("ttt-db") or pytest.skip("the ttt-db console script is not installed")
    command = [script, "check", "hostile_bots:catches_the_timeout", "--weak", "--db", str(db_path)]
    process = subprocess.Popen(command, cwd=hostile.parent, stderr=subprocess.PIPE, start_new_session=True)
    worker = None
    for _ in range(200):  # until the AI's process runs (this command's: another test may run the same AI)
        worker = next(_processes_running("catches_the_timeout", parent=process.pid), None)
        if worker is not None:
            break
        time.sleep(0.05)
    assert worker is not None
    os.killpg(process.pid, signal.SIGINT)
    assert process.wait(timeout=20) == 130
    for _ in range(100):
        if not any(pid == worker for pid in _processes_running("catches_the_timeout")):
            break
        time.sleep(0.05)
    else:
        pytest.fail("the AI's process outlived the command")


def _processes_running(text: str, parent: int | None = None) -> Iterator[int]:
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                command = (entry / "cmdline").read_bytes()
                fields = (entry / "stat").read_text().rpartition(")")[2].split()
            except OSError:
                continue
            state, parent_pid = fields[0], int(fields[1])
            if parent is not None and parent_pid != parent:
                continue
            if text.encode() in command and b"ttt_db.ais.isolation" in command and state != "Z":
                yield int(entry.name)


@pytest.mark.parametrize("function", ["blank_doc", "odd_doc"])
def test_any_docstring_is_fine(run, hostile: Path, function: str) -> None:
    from ttt_db.ais.registry import load_ai

    assert load_ai(f"hostile_bots:{function}").summary == "user AI"
    assert run("check", f"hostile_bots:{function}", "--weak").exit_code == 1


def test_sys_exit_at_import_is_an_unknown_ai(run, tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "exits_on_import.py").write_text("import sys\nsys.exit(0)\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    result = run("check", "exits_on_import:play")
    assert (result.exit_code, result.stderr) == (
        2,
        "error: AI 'exits_on_import:play' failed to load: importing 'exits_on_import' called sys.exit(0)\n",
    )


def test_a_file_in_the_folder_cannot_shadow_an_installed_package(tmp_path: Path) -> None:
    (tmp_path / "tqdm.py").write_text("raise RuntimeError('the real tqdm was shadowed')\n")
    (tmp_path / "simple_bot.py").write_text("def play(board):\n    return [board.index('.')]\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"TTT_DB": str(tmp_path / "db.sqlite")}
    script = shutil.which("ttt-db") or pytest.skip("the ttt-db console script is not installed")
    result = subprocess.run(
        [script, "check", "simple_bot:play", "--weak"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1, result.stderr
    assert result.stdout.splitlines()[0] == "simple_bot:play: NOT solved"
    assert "shadowed" not in result.stderr


def test_a_library_bug_is_exit_3_with_one_line(run, monkeypatch) -> None:
    def broken(*args: object, **kwargs: object) -> object:
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr("ttt_db.store.database.SolutionDatabase.lookup", broken)
    result = run("best-moves", "ox..x....")
    assert result.exit_code == 3
    assert result.stderr == (
        "error: internal error, a bug in ttt-db: ZeroDivisionError: division by zero "
        "(run with --debug for the traceback)\n"
    )
    debugged = run("--debug", "best-moves", "ox..x....")
    assert debugged.exit_code == 3
    assert "Traceback (most recent call last)" in debugged.stderr
    assert debugged.stderr.rstrip().endswith("(run with --debug for the traceback)")


def test_a_value_error_from_a_bug_is_not_called_bad_input(run, monkeypatch) -> None:
    monkeypatch.setattr("ttt_db.store.database.SolutionDatabase.lookup", lambda *a, **k: int("not a number"))
    assert run("show", "ox..x....").exit_code == 3


def test_ctrl_c_while_the_app_loads_exits_130_quietly(monkeypatch, capsys) -> None:
    from ttt_db import cli

    class InterruptedImport:
        def find_spec(self, name: str, path: object = None, target: object = None) -> None:
            if name == "ttt_db.cli.app":
                raise KeyboardInterrupt

    monkeypatch.delitem(sys.modules, "ttt_db.cli.app", raising=False)
    monkeypatch.setattr(sys, "meta_path", [InterruptedImport(), *sys.meta_path])
    with pytest.raises(SystemExit) as stopped:
        cli.main()
    assert stopped.value.code == 130
    assert capsys.readouterr().err == "\n"
