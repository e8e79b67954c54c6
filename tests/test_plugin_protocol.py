"""The answer protocol between ttt-db and a user AI's worker: a plug-in that writes into it, floods
it, forks or dies by a signal fails at its board, and every other board keeps its own answer."""

from __future__ import annotations

import json
import time
from pathlib import Path

from ttt_db.ais.isolation import MAX_REPLY_BYTES


def _bot(tmp_path: Path, body: str) -> str:
    path = tmp_path / "bot.py"
    path.write_text("import os, signal, sys, time\n\ndef play(board):\n" + body + "    return [board.index('.')]\n")
    return f"{path}:play"


def _strong(run, bot: str) -> dict:
    result = run("check", bot, "--strong", "--json", "--timeout", "5")
    return json.loads(result.stdout)["strong"]


def _failing_boards(strong: dict) -> set[str]:
    return {failure["board"] for failure in strong["failures"]}


def test_a_forged_reply_fails_its_board_and_shifts_no_answer(run, tmp_path: Path) -> None:
    bot = _bot(tmp_path, "    if board == 'o........':\n        os.write(int(sys.argv[-1]), b'{\"moves\": [1]}\\n')\n")
    forged = _strong(run, bot)
    plain = json.loads(run("check", "ai1s", "--strong", "--json").stdout)["strong"]
    assert (forged["correct"], forged["failing"]) == (plain["correct"], plain["failing"])  # 1,322 as ai1s
    assert _failing_boards(forged) == _failing_boards(plain)
    errors = [f for f in forged["failures"] if "error" in f]
    assert [f["board"] for f in errors] == ["o........"]
    assert errors[0]["error"].startswith("the AI's process broke the answer protocol")


def test_an_extra_reply_sent_through_the_workers_own_function_shifts_no_answer(run, tmp_path: Path) -> None:
    """The AI walks up its stack to the worker's `send` (token and numbering included) and answers
    its board twice: the worker's own reply then names a board that is not the next one, so that
    board fails and the worker restarts, instead of every later answer landing one board late."""
    bot = _bot(
        tmp_path,
        "    if board == 'o........':\n"
        "        frame = sys._getframe()\n"
        "        while 'send' not in frame.f_locals:\n"
        "            frame = frame.f_back\n"
        "        frame.f_locals['send']({'moves': [board.index('.')], 'board': board})\n",
    )
    extra = _strong(run, bot)
    plain = json.loads(run("check", "ai1s", "--strong", "--json").stdout)["strong"]
    errors = [f for f in extra["failures"] if "error" in f]
    assert len(errors) == 1 and errors[0]["error"].startswith("the AI's process broke the answer protocol")
    failed_once = errors[0]["board"]
    assert failed_once != "o........"
    assert plain["correct"] - 1 <= extra["correct"] <= plain["correct"]
    assert _failing_boards(extra) - {failed_once} == _failing_boards(plain) - {failed_once}


def test_an_ai_that_closes_its_board_pipe_fails_one_board_in_one_line(run, tmp_path: Path) -> None:
    bot = _bot(tmp_path, "    if board == 'o........':\n        os.close(int(sys.argv[-2]))\n")
    result = run("check", bot, "--strong", "--json")
    errors = [f for f in json.loads(result.stdout)["strong"]["failures"] if "error" in f]
    assert [f["error"] for f in errors] == ["the AI's process ended: the AI closed the pipe its boards come on"]
    assert "Traceback" not in result.stderr and "Bad file descriptor" not in result.stderr


def test_what_an_ai_prints_is_relayed_up_to_a_cap_per_answer_and_the_rest_counted(run, tmp_path: Path) -> None:
    import re

    from ttt_db.ais.isolation import PRINTED_PER_BOARD

    printed = 16 * PRINTED_PER_BOARD
    bot = _bot(tmp_path, f"    if board == 'o........':\n        print('#' * {printed - 1}, flush=True)\n")
    result = run("check", bot, "--weak", "--json")
    assert json.loads(result.stdout)["ai"] == f"{tmp_path / 'bot.py'}:play"
    said = [
        (int(d.replace(",", "")), int(t.replace(",", "")))
        for d, t in re.findall(r"dropped ([\d,]+) of the ([\d,]+) bytes", result.stderr)
    ]
    relayed = result.stderr.count("#")
    assert said and relayed + sum(dropped for dropped, _ in said) == printed  # the newline is a byte too
    assert relayed <= PRINTED_PER_BOARD * len(said)


def test_a_flood_of_bytes_fails_its_board_at_once(run, tmp_path: Path) -> None:
    bot = _bot(
        tmp_path, f"    if board == 'o........':\n        os.write(int(sys.argv[-1]), b'x' * {4 * MAX_REPLY_BYTES})\n"
    )
    started = time.monotonic()
    strong = _strong(run, bot)
    assert time.monotonic() - started < 20
    errors = [f for f in strong["failures"] if "error" in f]
    assert [f["board"] for f in errors] == ["o........"]
    assert f"more than {MAX_REPLY_BYTES:,} bytes" in errors[0]["error"]


def test_what_the_ai_starts_ends_with_its_worker(run, tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    bot = _bot(
        tmp_path,
        f"    if not os.path.exists({str(pid_file)!r}):\n"
        "        child = os.fork()\n"
        "        if child == 0:\n"
        "            time.sleep(120)\n"
        "            os._exit(0)\n"
        f"        open({str(pid_file)!r}, 'w').write(str(child))\n",
    )
    run("check", bot, "--weak")
    _assert_ended(int(pid_file.read_text()))


def _assert_ended(pid: int) -> None:
    for _ in range(50):
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
        except OSError:
            return  # gone
        if state == "Z":
            return  # killed, not yet reaped by the machine's init
        time.sleep(0.1)
    raise AssertionError(f"the AI's process {pid} outlived the command")


def test_what_the_ai_starts_in_a_session_of_its_own_ends_with_its_worker_too(run, tmp_path: Path) -> None:
    """A child that calls setsid() leaves the worker's process group, and a grandchild whose parent
    ends at once leaves the worker's tree too, unless the worker is their subreaper."""
    pids = tmp_path / "pids"
    bot = _bot(
        tmp_path,
        f"    if not os.path.exists({str(pids)!r}):\n"
        "        import subprocess\n"
        "        detached = subprocess.Popen(['sleep', '120'], start_new_session=True)\n"
        "        reader, writer = os.pipe()\n"
        "        if os.fork() == 0:\n"
        "            os.setsid()\n"
        "            grandchild = os.fork()\n"
        "            if grandchild == 0:\n"
        "                time.sleep(120)\n"
        "            os.write(writer, str(grandchild).encode())\n"
        "            os._exit(0)\n"
        "        orphan = int(os.read(reader, 20))\n"
        f"        open({str(pids)!r}, 'w').write(f'{{detached.pid}} {{orphan}}')\n",
    )
    run("check", bot, "--weak")
    detached, orphan = map(int, pids.read_text().split())
    _assert_ended(detached)
    _assert_ended(orphan)


def test_a_death_by_signal_is_named_by_its_signal(run, tmp_path: Path) -> None:
    bot = _bot(tmp_path, "    if board == 'o........':\n        os.kill(os.getpid(), signal.SIGSEGV)\n")
    errors = [f for f in _strong(run, bot)["failures"] if "error" in f]
    assert [f["error"] for f in errors] == ["the AI's process was killed by SIGSEGV"]


def test_the_ai_cannot_write_into_ttt_dbs_own_output(tmp_path: Path, db_path: Path) -> None:
    """Its process runs as the same user, but ttt-db is not dumpable while it runs: /proc/PPID/fd/1
    is closed to it (as root the test drops CAP_SYS_PTRACE, which would open it)."""
    import os
    import shutil
    import subprocess
    import sys

    bot = tmp_path / "hijack.py"
    bot.write_text(
        "import os\n\ndef play(board):\n"
        "    with open(f'/proc/{os.getppid()}/fd/1', 'w') as out:\n"
        "        out.write('HIJACK')\n"
        "    return [board.index('.')]\n"
    )
    command = [sys.executable, "-c", "from ttt_db.cli import main; main()", "check", f"{bot}:play", "--weak", "--json"]
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            import pytest

            pytest.skip("running as root without setpriv (util-linux) to drop CAP_SYS_PTRACE")
        command = [setpriv, "--bounding-set", "-sys_ptrace", "--inh-caps", "-sys_ptrace", *command]
    result = subprocess.run([*command, "--db", str(db_path)], capture_output=True, text=True, check=False)
    assert "HIJACK" not in result.stdout
    document = json.loads(result.stdout)  # still one document
    assert document["weak"]["o"]["counterexample"]["error"].startswith("the AI raised PermissionError")
