"""SIGTERM and Ctrl-C stop a check promptly with 143 and 130, whatever the AI is doing, and are
never reported as the AI's failure."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest


def _stopped(
    args: list[str], db_path: Path, stop: signal.Signals, *, group: bool = False
) -> subprocess.CompletedProcess[str]:
    """Run `ttt-db ARGS`, send `stop` once its progress has begun (to its whole process group
    when `group`, as a terminal's Ctrl-C or a service manager does), and wait for it."""
    command = [sys.executable, "-c", "from ttt_db.cli import main; main()", *args, "--db", str(db_path)]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    assert process.stderr is not None
    began = process.stderr.readline()  # "asking AI at N decision positions ...": the check runs
    assert began.startswith("asking "), (began, process.communicate())
    if group:
        os.killpg(process.pid, stop)
    else:
        process.send_signal(stop)
    # each check asked for runs a minute or more: ending within the wait is stopping on the signal
    out, err = process.communicate(timeout=30)
    return subprocess.CompletedProcess(command, process.returncode, out, began + err)


@pytest.mark.parametrize(("stop", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_during_a_builtin_ais_answer_stops_the_check(db_path: Path, stop: signal.Signals, code: int) -> None:
    result = _stopped(["check", "iddfs@0.05"], db_path, stop)  # answers by the clock: ~3 minutes in all
    assert result.returncode == code, result.stderr
    assert result.stdout == "" and "sys.exit" not in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(("stop", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_to_the_group_stops_a_user_ai_and_its_process(
    db_path: Path, tmp_path: Path, stop: signal.Signals, code: int
) -> None:
    bot = tmp_path / "slow_bot.py"
    bot.write_text("import time\n\ndef play(board):\n    time.sleep(0.02)\n    return [board.index('.')]\n")
    result = _stopped(["check", f"{bot}:play"], db_path, stop, group=True)
    assert result.returncode == code, result.stderr
    assert result.stdout == "" and "the AI's process" not in result.stderr


def test_a_stopped_level_step_waits_for_the_ranges_running_not_the_rest() -> None:
    """A level is spread over threads in ranges; a signal (raised in the main thread) or a failed
    range must not wait for every range still queued (a 5x5k4 level's would take minutes)."""
    import threading

    from ttt_db.ranked.backend import Backend, interpreted

    started: list[int] = []
    lock = threading.Lock()

    def work(worker: int, start: int, stop: int) -> int:
        with lock:
            started.append(start)
        if start == 0:
            raise KeyboardInterrupt
        time.sleep(0.2)
        return start

    with pytest.raises(KeyboardInterrupt):
        Backend("compiled", interpreted().run, 2).spread(64, work)
    assert len(started) < 8  # of 16 ranges: the failed one and those already running


def test_a_time_limit_puts_back_the_alarm_handler_unless_kept_armed() -> None:
    """`time_limit` ends a slow answer with the board's failure and, in a process of ttt-db's
    callers, leaves SIGALRM's handler as it found it; a user AI's worker keeps its handler armed
    once (`keep_time_limits_armed`), and each limit still ends a slow answer."""
    from ttt_db.ais.calling import keep_time_limits_armed, time_limit
    from ttt_db.errors import AIMisbehaved

    def spin() -> None:
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            pass

    def callers_own(signum: int, frame: object) -> None:
        raise AssertionError("the caller's alarm")

    previous = signal.signal(signal.SIGALRM, callers_own)
    try:
        for kept in (False, True):
            if kept:
                keep_time_limits_armed()
            armed = signal.getsignal(signal.SIGALRM)
            with time_limit(".........", 5.0):
                pass
            with pytest.raises(AIMisbehaved, match="did not answer within 0.05 s"), time_limit(".........", 0.05):
                spin()
            assert signal.getsignal(signal.SIGALRM) is armed
            assert armed is callers_own or kept
            assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    finally:
        signal.signal(signal.SIGALRM, previous)
