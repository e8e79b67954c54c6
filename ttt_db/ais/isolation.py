"""A user's AI in a process of its own, so that whatever it raises, catches, allocates or writes,
it cannot crash, hang or exhaust ttt-db, or write into its output.

    with contained_ai("bots/my_bot.py:play", game=game, limits=Limits(seconds=1)) as named:
        run_checks(named, database)

The parent (`IsolatedAI`) sends each board on a pipe. The worker (`python -m
ttt_db.ais.isolation`, `main` below) imports the AI and answers its first board within the
limits' `import_seconds` (a bot may train when imported or on first use), then each board within
`seconds`, timed by itself (`answer_within`): a late answer fails at its board and the process,
with whatever the AI learnt, answers the next. Only an AI that cannot be interrupted (stuck in C
code) is killed, `KILL_GRACE` seconds later, and a fresh process answers the next board. The
worker limits its own address space to `memory_mb`, ignores Ctrl-C and SIGTERM (they are the
parent's to handle, which stops the worker as it unwinds; a KeyboardInterrupt the AI raises
itself is its own fault), writes whatever the AI prints to ttt-db's stderr, dies with its parent,
and validates each answer with `answer_at` so that a failure keeps its board, its reason
and the `path:line` of the user's code. Built-in AIs are ttt-db's own code and run in the
calling process (`answer_within` limits their time).
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
import time
import weakref
from collections import deque
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import replace
from typing import Any, Final

import ttt_db.ais.limits as limits_module
from ttt_db.ais.calling import (
    Policy,
    answer_at,
    answer_within,
    keep_time_limits_armed,
    misbehaviour,
    probability_of_text,
    time_limit,
)
from ttt_db.ais.limits import Limits
from ttt_db.ais.protocol import DatabaseProvider, NamedAI
from ttt_db.ais.registry import load_ai
from ttt_db.errors import AILoadFailedError, AIMisbehaved, AINotForGameError, AIUnusableError, UnknownAIError
from ttt_db.game.definition import Game
from ttt_db.json_text import compact_json, read_json, read_json_fast

_REFUSALS: Final[dict[str, type[UnknownAIError]]] = {"failed": AILoadFailedError, "unusable": AIUnusableError}
"""How the worker names a refusal of the AI it was to load (any other is an UnknownAIError)."""

WINDOW: Final = 64
"""Boards sent to a worker before their answers are read (`IsolatedAI.ask_ahead`)."""
_REASON_CHARS: Final = 500
KILL_GRACE: Final = 2.0
"""Seconds past an answer's limit before the parent kills a worker whose AI ignored its own timer."""
MAX_REPLY_BYTES: Final = 1 << 16
"""The longest reply a worker may send: a board's moves fit in far less."""
PRINTED_PER_BOARD: Final = 1 << 16
"""The most bytes of what an AI prints that are relayed per answer; the rest is read, counted and
said in one line."""
PIPE_CLOSED_EXIT: Final = 75
"""A worker's exit status when the AI closed (or broke) the pipe the worker reads boards from."""


def is_user_ai(spec: str) -> bool:
    return ":" in spec


@contextlib.contextmanager
def contained_ai(
    spec: str,
    game: Game,
    database: DatabaseProvider | None = None,
    limits: Limits | None = None,
    waiting: Callable[[str], None] | None = None,
) -> Iterator[NamedAI]:
    """The AI of `spec` held to `limits`: a user's AI in a worker process (stopped on exit; its
    time per answer `DEFAULT_USER_ANSWER_SECONDS` unless `limits` says, and `waiting` told, every
    `WAITING_NOTICE_SECONDS` it waits for one answer, which board it is waiting at), a built-in one
    in this process with its answers timed. UnknownAIError as `load_ai` raises it."""
    limits = limits or Limits()
    if not is_user_ai(spec):
        named = load_ai(spec, database, game)
        yield named if limits.seconds is None else replace(named, play=answer_within(named.play, limits.seconds))
        return
    if limits.seconds is None:
        limits = replace(limits, seconds=limits_module.DEFAULT_USER_ANSWER_SECONDS)
    with _out_of_reach():
        isolated = IsolatedAI(spec.strip(), limits, game, waiting)
        try:
            yield NamedAI(spec.strip(), isolated, None, isolated.summary)
        finally:
            isolated.close()


@contextlib.contextmanager
def _out_of_reach() -> Iterator[None]:
    """This process made non-dumpable while a user's AI runs (Linux), so that the AI's process,
    though it runs as the same user, cannot open this one's files through /proc (its stdout, the
    database): only a process with CAP_SYS_PTRACE can. Restored after."""
    try:
        import ctypes

        prctl = ctypes.CDLL(None).prctl
    except (OSError, AttributeError):
        yield
        return
    was = prctl(3, 0, 0, 0, 0)  # PR_GET_DUMPABLE
    prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE
    try:
        yield
    finally:
        if was > 0:
            prctl(4, was, 0, 0, 0)


class IsolatedAI:
    """The calling side: an AI (a callable of a board) answered by a worker process."""

    def __init__(self, spec: str, limits: Limits, game: Game, waiting: Callable[[str], None] | None = None) -> None:
        self.spec = spec
        self.limits = limits
        self.game = game
        self._waiting = waiting
        self.summary = "user AI"
        self._process: subprocess.Popen[bytes] | None = None
        self._ahead: deque[str] = deque()  # boards the caller will ask next, not yet sent
        self._in_flight: deque[str] = deque()  # boards sent, in order, their answers not yet read
        self._since = 0.0  # when the worker began the first board in flight
        self._next_notice = limits_module.WAITING_NOTICE_SECONDS  # seconds waited before `waiting` is told
        self._start(first=True)

    def _start(self, *, first: bool = False) -> None:
        to_child_read, self._to_child = os.pipe()
        self._from_child, from_child_write = os.pipe()
        seconds = self.limits.seconds
        command = [sys.executable, "-P", "-m", __name__, self.spec, str(self.limits.memory_mb), self.game.name]
        command += ["-" if seconds is None else repr(seconds), repr(self.limits.import_seconds)]
        command += [str(to_child_read), str(from_child_write)]
        import secrets  # only a user's AI needs it: a built-in one's check does not load it

        self._token = secrets.token_hex(16)  # the worker reads it before the AI is imported
        self._replies = 0  # replies read from this worker, its "ready" the first
        try:
            self._process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,  # what the AI prints, on either stream: relayed to our stderr
                stderr=subprocess.STDOUT,
                pass_fds=(to_child_read, from_child_write),
                process_group=0,  # a terminal's Ctrl-C or a group's SIGTERM is ttt-db's alone, from the start
            )
        finally:
            os.close(to_child_read)
            os.close(from_child_write)
        assert self._process.stdout is not None
        self._printed = self._process.stdout.fileno()
        os.set_blocking(self._printed, False)
        self._printing = True
        self._printed_bytes = 0  # since the last answer
        self._buffer = b""  # the start of a reply not yet whole
        self._lines: deque[bytes] = deque()  # whole replies not yet read
        self._finalizer = weakref.finalize(self, _stop, self._process, self._to_child, self._from_child)
        os.write(self._to_child, self._token.encode("ascii") + b"\n")
        self._answered = False  # its first answer may take as long as its import (a bot that trains)
        self._started_at = time.monotonic()
        late = (
            f"importing it took longer than {self.limits.import_seconds:g} s: if it trains or loads a model "
            "when imported, give it longer with --import-timeout SECONDS"
        )
        try:
            reply = self._reply(self.spec, self._started_at + self.limits.import_seconds, late, names_board=False)
        except AIMisbehaved as error:  # it never got as far as a board
            raise AILoadFailedError(self.spec, error.reason) from None
        if "refused" in reply:
            self.close()
            reason, not_for = str(reply["refused"]), reply.get("not_for_game")
            if isinstance(not_for, str):
                raise AINotForGameError(self.spec, not_for, reason)
            refused = _REFUSALS.get(str(reply.get("refusal")), UnknownAIError)
            raise refused(self.spec, reason)
        if first:
            self.summary = str(reply.get("ready") or "user AI")

    def ask_ahead(self, boards: Sequence[str]) -> None:
        """Say which boards come next, in order: up to `WINDOW` of them are sent before their
        answers are read, so the worker is never idle waiting for the next board (a round trip
        between processes costs more than most AIs' answers)."""
        self._ahead = deque(boards)

    def __call__(self, board: str) -> Collection[int]:
        if self._in_flight and self._in_flight[0] != board:  # not the boards announced: start afresh
            self.close()
        if self._process is None:
            self._start()
        if not self._in_flight and (not self._ahead or self._ahead[0] != board):
            self._ahead = deque([board])
        self._send_ahead()
        seconds = self.limits.seconds
        if not self._answered:
            first = first_answer_seconds(self.limits.import_seconds, self.limits.seconds)
            reply = self._reply(
                board,
                self._started_at + first + KILL_GRACE,
                f"the AI's import and first answer took longer than {first:g} s, and it "
                "ignored the timer (its process was restarted)",
            )
        elif seconds is None:
            reply = self._reply(board, None, "")
        else:
            reply = self._reply(
                board,
                self._since + seconds + KILL_GRACE,
                f"the AI did not answer within {seconds:g} s, and ignored the timer (its process was restarted)",
            )
        self._answered = True
        self._in_flight.popleft()
        self._since = time.monotonic()
        self._next_notice = limits_module.WAITING_NOTICE_SECONDS
        self._say_dropped(board)
        if "probabilities" in reply:  # the worker's exact texts, within a reply's bytes: no exponent taken
            try:
                return {int(move): probability_of_text(p, MAX_REPLY_BYTES) for move, p in reply["probabilities"]}
            except (TypeError, ValueError) as error:
                raise AIMisbehaved(board, f"its process sent an unreadable answer: {error}") from None
        if "moves" in reply:
            return tuple(reply["moves"])
        raise AIMisbehaved(board, str(reply.get("reason")), reply.get("where"))

    def _send_ahead(self) -> None:
        """The boards announced, sent until WINDOW are in flight, once half of them or fewer are: a
        write a board would cost a system call each."""
        if len(self._in_flight) > WINDOW // 2:
            return
        batch = []
        while self._ahead and len(self._in_flight) < WINDOW:
            board = self._ahead.popleft()
            if not self._in_flight:
                self._since = time.monotonic()
            self._in_flight.append(board)
            batch.append(board.encode("ascii") + b"\n")
        if batch:
            with contextlib.suppress(BrokenPipeError):  # the worker has ended: reading its answer says how
                os.write(self._to_child, b"".join(batch))

    def _reply(self, board: str, deadline: float | None, late: str, *, names_board: bool = True) -> dict[str, Any]:
        """The worker's next reply, checked: its token, its number and (an answer) the board it
        answers (a reply for another board, or one the AI forged, is a protocol fault: the board
        fails and the worker is stopped, so no answer lands on another board); its size;
        AIMisbehaved when the worker ends, or saying `late` when `deadline` passes, whatever the
        worker writes meanwhile (and it is stopped)."""
        while not self._lines:
            if len(self._buffer) > MAX_REPLY_BYTES:
                raise self._fault(board, f"a reply of more than {MAX_REPLY_BYTES:,} bytes")
            now = time.monotonic()
            wait = None if deadline is None else deadline - now
            if wait is not None and wait <= 0:
                self.close()
                raise AIMisbehaved(board, late)
            if names_board and self._waiting is not None:
                waited = now - self._since
                if waited >= self._next_notice:
                    self._waiting(self._waiting_words(board, waited, deadline))
                    self._next_notice = waited + limits_module.WAITING_NOTICE_SECONDS
                until_notice = max(self._next_notice - waited, 0.01)
                wait = until_notice if wait is None else min(wait, until_notice)
            watched = [self._from_child, self._printed] if self._printing else [self._from_child]
            ready, _, _ = select.select(watched, [], [], wait)
            if self._printed in ready:
                self._relay_printed()
            if self._from_child in ready:
                chunk = os.read(self._from_child, 65536)
                if not chunk:
                    raise self._ended(board)
                *whole, self._buffer = (self._buffer + chunk).split(b"\n")
                self._lines.extend(whole)
        line = self._lines.popleft()
        try:  # strict and fast first; what it refuses is read as every reader reads JSON from outside
            reply = read_json_fast(line)
        except ValueError:
            try:
                reply = read_json(line)
            except ValueError:
                raise self._fault(board, "a reply that is not the worker's") from None
        if (
            not isinstance(reply, dict)
            or reply.get("token") != self._token
            or reply.get("number") != self._replies
            or (names_board and reply.get("board") != board)
        ):
            raise self._fault(board, "a reply that is not the worker's, or not for this board")
        self._replies += 1
        return reply

    def _waiting_words(self, board: str, waited: float, deadline: float | None) -> str:
        option = "--timeout" if self._answered else "--import-timeout, --timeout"
        left = "" if deadline is None else f"; it fails there in {max(deadline - time.monotonic(), 0):.0f} s ({option})"
        return f"still waiting for {self.spec} to answer board {board!r}: {waited:.0f} s so far{left}"

    def _fault(self, board: str, what: str) -> AIMisbehaved:
        """The worker broke the answer protocol (the AI wrote into it): the board fails, the worker
        is stopped, and a fresh one answers the next board."""
        self.close()
        return AIMisbehaved(board, f"the AI's process broke the answer protocol ({what}): it was restarted")

    def _relay_printed(self) -> None:
        """Copy what the AI printed so far to this process's stderr (never its stdout), at most
        `PRINTED_PER_BOARD` bytes an answer."""
        try:
            while chunk := os.read(self._printed, 65536):
                room = max(PRINTED_PER_BOARD - self._printed_bytes, 0)
                if room:
                    sys.stderr.write(chunk[:room].decode("utf-8", "replace"))
                self._printed_bytes += len(chunk)
            self._printing = False  # the end of its output: the process has ended
        except (BlockingIOError, OSError):
            pass

    def _say_dropped(self, board: str | None) -> None:
        """One line for what the AI printed past the relayed part since the last answer (`board`
        the one answered now; None while it started)."""
        dropped = self._printed_bytes - PRINTED_PER_BOARD
        if dropped > 0:
            when = "while it started" if board is None else f"by its answer at {board!r}"
            sys.stderr.write(
                f"\n[ttt-db: dropped {dropped:,} of the {self._printed_bytes:,} bytes the AI printed {when} "
                f"(at most {PRINTED_PER_BOARD:,} are shown an answer)]\n"
            )
        self._printed_bytes = 0

    def _ended(self, board: str) -> AIMisbehaved:
        process = self._process
        self.close()
        code = process.wait() if process is not None else None
        if code == PIPE_CLOSED_EXIT:
            how = "ended: the AI closed the pipe its boards come on"
        elif code is not None and code < 0:
            how = f"was killed by {signal.Signals(-code).name}"
        else:
            how = f"exited with code {code}"
        return AIMisbehaved(board, f"the AI's process {how}")

    def close(self) -> None:
        """Stop the worker (a fresh one starts if the AI is asked again, and answers the boards
        sent to this one after the one being answered)."""
        failed = self._in_flight.popleft() if self._in_flight else None  # or that no one asks for now
        self._ahead.extendleft(reversed(self._in_flight))
        self._in_flight.clear()
        if self._process is not None:
            self._finalizer()
            self._relay_printed()
            self._say_dropped(failed)
            if self._process.stdout is not None:
                self._process.stdout.close()
            self._process = None


def _stop(process: subprocess.Popen[bytes], *fds: int) -> None:
    """Kill whatever the AI started, however it detached (`setsid`, a double fork: the worker is
    their subreaper, so each stays below it), then the worker's whole process group; close its
    pipes."""
    for _ in range(_KILL_ROUNDS):  # a descendant may fork while the others are killed
        below = _descendants(process.pid)
        if not below:
            break
        for pid in below:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)


_KILL_ROUNDS: Final = 8


def _descendants(pid: int) -> list[int]:
    """The live processes below `pid` (Linux's /proc; none elsewhere), zombies left out."""
    children: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rpartition(b")")[2].split()
        except OSError:
            continue  # ended while the list was read
        if fields and fields[0] != b"Z":
            children.setdefault(int(fields[1]), []).append(int(entry))
    found: list[int] = []
    waiting = [pid]
    while waiting:
        below = children.get(waiting.pop(), [])
        found += below
        waiting += below
    return found


# --- the worker process -------------------------------------------------------------------


def _die_with_parent() -> None:
    """Ask Linux to kill this process when its parent ends (a parent killed by SIGKILL too), and
    to keep every process the AI starts below it, even one whose parent ends (a subreaper), so that
    the parent finds them all when it stops this one."""
    try:
        import ctypes

        prctl = ctypes.CDLL(None).prctl
        prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        prctl(36, 1)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass


def _answer_document(answer: tuple[int, ...] | Policy) -> dict[str, Any]:
    """An answer as the worker sends it: its moves, and its probabilities (exact, as text) where
    the AI gave them."""
    if isinstance(answer, dict):
        return {"moves": list(answer), "probabilities": [[move, str(p)] for move, p in answer.items()]}
    return {"moves": list(answer)}


def _answer(ai: Any, board: str, seconds: float | None, late: str | None = None) -> dict[str, Any]:
    """The AI's answer at `board`, validated, within `seconds` (its reading included), or what
    went wrong."""
    try:
        if seconds is None:
            return _answer_document(answer_at(ai, board))
        with time_limit(board, seconds, late):
            return _answer_document(answer_at(ai, board))
    except AIMisbehaved as error:
        return {"reason": error.reason[:_REASON_CHARS], "where": error.where}
    except BaseException as error:  # KeyboardInterrupt, GeneratorExit, MemoryError...: all the AI's
        failure = misbehaviour(board, error)
        return {"reason": failure.reason[:_REASON_CHARS], "where": failure.where}


def first_answer_seconds(import_seconds: float, seconds: float | None) -> float:
    """How long a user AI's process has to import its module and answer its first board: the
    import's time and one answer's (a bot may train or load a model on first use)."""
    return import_seconds + (seconds or 0.0)


def _late_first_answer(import_seconds: float, seconds: float | None, took: float) -> str:
    """Why a first answer failed, and which limit to give more: the import's when the import took
    most of it, else the answer's."""
    said = f"the AI's import and first answer took longer than {first_answer_seconds(import_seconds, seconds):g} s"
    if took >= import_seconds / 2 or seconds is None:
        return (
            f"{said} (its import {took:.1f} s): if it trains or loads a model, give it longer with --import-timeout "
            "SECONDS"
        )
    return (
        f"{said} (its import {took:.1f} s, then its answer): give each answer longer with --timeout SECONDS, "
        "or the first with --import-timeout SECONDS if it trains on first use"
    )


def main(arguments: list[str]) -> int:
    started = time.monotonic()
    spec, memory_mb, game_name, seconds = arguments[0], int(arguments[1]), arguments[2], arguments[3]
    import_seconds, board_fd, answer_fd = float(arguments[4]), int(arguments[5]), int(arguments[6])
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the user's Ctrl-C and SIGTERM are the parent's to
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # handle: it stops this process as it unwinds
    keep_time_limits_armed()
    _die_with_parent()
    import resource

    address_space = memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
    answers = os.fdopen(answer_fd, "wb")
    boards = os.fdopen(board_fd, "r")
    token = boards.readline().strip()  # read before the AI is imported: it cannot know it
    replies = 0

    def send(document: dict[str, Any]) -> None:
        nonlocal replies
        answers.write(compact_json(document | {"token": token, "number": replies}) + b"\n")
        answers.flush()  # each reply as it is made: the parent times each answer
        replies += 1

    try:
        from ttt_db.ais.plugins import load_user_ai
        from ttt_db.ranked.slots import game_from_name

        named = load_user_ai(spec, game_from_name(game_name))
    except UnknownAIError as error:
        not_for = error.game_name if isinstance(error, AINotForGameError) else None
        refusal = next((name for name, kind in _REFUSALS.items() if isinstance(error, kind)), "unknown")
        send({"refused": error.reason, "refusal": refusal, "not_for_game": not_for})
        return 0
    except BaseException as error:  # the user's module, while importing: anything at all
        send({"refused": f"importing it raised {type(error).__name__}: {error}"[:_REASON_CHARS], "failed": True})
        return 0
    send({"ready": named.summary})
    limit = None if seconds == "-" else float(seconds)
    first = True
    while True:
        try:
            line = boards.readline()
        except (OSError, ValueError):  # the AI closed or replaced the pipe: no board can come
            os._exit(PIPE_CLOSED_EXIT)
        if not line:
            return 0
        board = line.rstrip("\n")
        if first:  # what is left of the import's time, and an answer's: a bot may train on its first answer
            took = time.monotonic() - started
            left = max(import_seconds - took, 0.001) + (limit or 0.0)
            send(_answer(named.play, board, left, _late_first_answer(import_seconds, limit, took)) | {"board": board})
            first = False
        else:
            send(_answer(named.play, board, limit) | {"board": board})


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
