"""A stream of batch items answered on every core: what `best-moves -` and `show -` print.

`SolutionDatabase.position_lines` answers items in one process, and its work per board is
Python, on one core. Here a stream of arrivals (lists of items, as they come) is answered in order
as JSON lines, in groups, every line read so far answered before the stream is waited on (a bot
that writes a board and waits gets its answer); once a stream proves large, some groups are
answered by helper processes (`Helpers`: spawned, each with its own handle on the database). A
helper is given groups only once it is ready (its start-up, with its kernels' load, runs beside
this process's own work, so a batch never waits for one) and GIVEN_AHEAD at a time, so the groups
stay balanced; it reads what it is given on a thread of its own, so that neither side ever waits
for the other to read (a group or an answer can be larger than a pipe holds). A helper that
fails leaves its groups to this process, which answers them as it answers any (damage raises
here, in its own words). Spawned processes import the caller's main module: a script that asks
for helpers keeps its work under `if __name__ == "__main__":`.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import queue
import signal
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import islice
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

    from ttt_db.game.definition import Game
    from ttt_db.game.rules import Mark
    from ttt_db.store.database import SolutionDatabase
    from ttt_db.store.location import DatabaseLocation

HELPED_FROM: Final = 4096
"""Items read from a stream before helpers are started (a bot's game of a few boards never starts
one, and a batch that a helper could not share for its start-up seldom does)."""
HELPED_SOON: Final = 1024
"""Items read from which helpers are started at once when more are waiting already (a large stream
through a pipe arrives a pipe's buffer at a time)."""
GROUP_ITEMS: Final = 2048
"""Items of an arrival answered together, here or by a helper."""
COLLECTED_GROUPS: Final = 32
"""Groups answered between two garbage collections in a stream that never pauses."""
READY: Final = "ready"
"""What a helper says once it has opened the database."""
GIVEN_AHEAD: Final = 2
"""Groups a helper is given before it has answered the first: the next is there as it finishes one."""
STOPPING_SECONDS: Final = 5.0
"""How long a helper told to stop may take before it is killed (a guard, not a wait)."""
MOST_PROCESSES: Final = 4
"""Processes answering one stream at most, this one included (each holds its own tables)."""


def default_processes() -> int:
    """The processes a stream is answered by unless told: one per core this process may run on, at
    most MOST_PROCESSES."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(MOST_PROCESSES, cores))


def answered_lines(
    database: SolutionDatabase,
    arrivals: Iterable[list[str]],
    *,
    first: Mark | None = None,
    more_arrived: Callable[[], bool] = lambda: False,
    processes: int = 1,
    helpers: Helpers | None = None,
) -> Iterator[bytes]:
    """Each arrival's documents (`position_lines`'), as JSON lines, GROUP_ITEMS at a time, in
    order; before the next arrival is waited for (`more_arrived()` false: none has come yet),
    every line of those read so far. Once HELPED_FROM items are read (HELPED_SOON with more
    waiting), `processes` - 1 helpers (or `helpers`, started already) answer some of the groups.
    Garbage is collected every COLLECTED_GROUPS groups and before each wait
    (`collections_deferred`), and what the handle remembers is frozen."""
    pending = _Pending(database, first)
    read = 0
    with collections_deferred():
        try:
            for items in arrivals:
                read += len(items)
                large = read >= HELPED_FROM or read >= HELPED_SOON and more_arrived()
                if helpers is None and processes > 1 and large:
                    helpers = Helpers(database, processes - 1, first)
                for group in _groups(items, GROUP_ITEMS):
                    yield from pending.add(group, helpers)
                    if pending.added % COLLECTED_GROUPS == 0:
                        _collected()
                if not more_arrived():
                    yield from pending.drained()
                    _collected()
            yield from pending.drained()
        finally:
            if helpers is not None:
                helpers.close()


@contextlib.contextmanager
def collections_deferred() -> Iterator[None]:
    """The garbage collector off meanwhile (as it was after): a batch's answers are many short-lived
    containers, and a collection every few hundred of them walks every one made since the last. The
    caller collects where it pauses (`answered_lines`), or leaves it to the next collection."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _collected() -> None:
    gc.collect()
    gc.freeze()  # what the handle remembers stays, and holds no cycle: no collection need walk it again


@dataclass
class _Pending:
    """Groups on their way out, in order: each with the helper answering it (None: answered here,
    with its lines)."""

    database: SolutionDatabase
    first: Mark | None
    groups: deque[tuple[_Helper | None, list[str], bytes]] = field(default_factory=deque)
    added: int = 0

    def add(self, group: list[str], helpers: Helpers | None) -> Iterator[bytes]:
        """The group handed to an idle helper, or answered here; then the lines of the groups at
        the front whose answers have come."""
        self.added += 1
        helper = helpers.idle() if helpers is not None else None
        if helper is not None and helper.give(group):
            self.groups.append((helper, group, b""))
        else:
            self.groups.append((None, group, answer_group(self.database, group, self.first)))
        while self.groups and (self.groups[0][0] is None or self.groups[0][0].answered()):
            yield self._taken()

    def drained(self) -> Iterator[bytes]:
        """The lines of every group, each helper's waited for."""
        while self.groups:
            yield self._taken()

    def _taken(self) -> bytes:
        """The front group's lines: its helper's, or (none, or it failed) answered here."""
        helper, group, lines = self.groups.popleft()
        if helper is None:
            return lines
        found = helper.take()
        return found if found is not None else answer_group(self.database, group, self.first)


def answer_group(database: SolutionDatabase, items: list[str], first: Mark | None) -> bytes:
    """The items' documents as JSON lines (`position_lines`)."""
    return b"".join(line + b"\n" for line in database.position_lines(items, first=first))


def _groups(items: list[str], size: int) -> Iterator[list[str]]:
    iterator = iter(items)
    while group := list(islice(iterator, max(1, size))):
        yield group


_ENDED: Final = object()
"""What a helper's reader keeps once its pipe has ended or failed."""


@dataclass
class _Helper:
    """One helper process and this end of its pipe: `ready` once it has opened the database, `given`
    the groups it has not answered yet (it answers them in order), `failed` once it cannot be used
    (then never again). What it sends is read by a thread of this end's own as it comes (`arrived`),
    so it never waits for this process to take an answer before it answers its next group."""

    process: BaseProcess
    connection: Connection
    ready: bool = False
    given: int = 0
    failed: bool = False
    groups: int = 0
    arrived: queue.SimpleQueue[object] = field(default_factory=queue.SimpleQueue)
    reader: threading.Thread | None = None

    def __post_init__(self) -> None:
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        try:
            while True:
                self.arrived.put(self.connection.recv())
        except BaseException:  # noqa: BLE001 - its end (EOF), or anything else: this end answers its groups
            self.arrived.put(_ENDED)

    def idle(self) -> bool:
        """Whether it can take a group now: ready, with fewer than GIVEN_AHEAD groups unanswered."""
        if not self.ready and not self.failed and not self.arrived.empty():
            self._heard_ready()
        return self.ready and not self.failed and self.given - self.arrived.qsize() < GIVEN_AHEAD

    def wait_ready(self) -> None:
        if not self.ready and not self.failed:
            self._heard_ready()

    def give(self, group: list[str]) -> bool:
        """Send it a group; whether it went."""
        try:
            self.connection.send(group)
        except (OSError, ValueError):
            self.failed = True
            return False
        self.given += 1
        return True

    def answered(self) -> bool:
        """Whether its first group's answer has come (or it failed: its groups are then answered here)."""
        return self.failed or not self.arrived.empty()

    def take(self) -> bytes | None:
        """Its first group's JSON lines, waited for; None when it failed."""
        found = None if self.failed else self._received()
        self.given -= 1
        if not isinstance(found, bytes):
            self.failed = True
            return None
        self.groups += 1
        return found

    def stop(self) -> None:
        """Tell it to stop, wait for it (stopping it if it is starting, or answering a group no one will
        read), then close this end."""
        with contextlib.suppress(OSError, ValueError):
            self.connection.send(None)
        if not self.ready or self.given:
            self.process.terminate()
        self.process.join(STOPPING_SECONDS)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        if self.reader is not None:
            self.reader.join(STOPPING_SECONDS)  # the pipe's other end is gone: it has read its end
        self.connection.close()

    def _heard_ready(self) -> None:
        self.ready = self._received() == READY
        self.failed = not self.ready

    def _received(self) -> object:
        found = self.arrived.get()
        if found is _ENDED:
            self.failed = True
            self.arrived.put(_ENDED)  # for whoever waits next
            return None
        return found


@dataclass
class Helpers:
    """Helper processes answering groups of items with handles of their own on `database`'s file
    (its location, game and pin), `count` of them, spawned at once (fewer where the system refuses
    a process: the stream is then answered by fewer, or by this process alone)."""

    database: SolutionDatabase
    count: int
    first: Mark | None
    _helpers: list[_Helper] = field(default_factory=list)

    def __post_init__(self) -> None:
        context = multiprocessing.get_context("spawn")  # a fork would copy this process's threads' locks
        database = self.database
        digest = database.pin.digest if database.pin is not None else None
        for _ in range(self.count):
            ours, theirs = context.Pipe()
            process = context.Process(
                target=_help, args=(theirs, database.location, database.game, digest, self.first), daemon=True
            )
            try:
                with _interrupts_ignored():  # a Ctrl-C is this process's to take, even while a helper starts
                    process.start()
            except OSError:  # no process to be had (a limit on processes, or on memory): fewer helpers
                ours.close()
                continue
            finally:
                theirs.close()
            self._helpers.append(_Helper(process, ours))

    @property
    def groups(self) -> int:
        """Groups the helpers have answered so far."""
        return sum(helper.groups for helper in self._helpers)

    def idle(self) -> _Helper | None:
        """A helper ready for a group, if one is."""
        return next((helper for helper in self._helpers if helper.idle()), None)

    def wait_ready(self) -> bool:
        """Wait until every helper has opened the database (or failed); whether one is ready."""
        for helper in self._helpers:
            helper.wait_ready()
        return any(helper.ready and not helper.failed for helper in self._helpers)

    def close(self) -> None:
        """Let the helpers go: each is told to stop (one still starting, or answering a group no one
        will read, is stopped: it only reads the database)."""
        for helper in self._helpers:
            helper.stop()


def _received_groups(connection: Connection) -> Iterator[list[str]]:
    """The groups sent to a helper, in order, until the pipe ends, read by a thread of their own as
    they come: the parent sending a group never waits on this process sending an answer (with a
    group or an answer larger than the pipe holds, each would wait for the other to read)."""
    arrived: queue.SimpleQueue[list[str] | BaseException | None] = queue.SimpleQueue()

    def read() -> None:
        try:
            while (group := connection.recv()) is not None:  # None: told to stop
                arrived.put(group)
            arrived.put(None)
        except EOFError:
            arrived.put(None)
        except BaseException as error:  # raised where the groups are answered
            arrived.put(error)

    threading.Thread(target=read, daemon=True).start()
    while (group := arrived.get()) is not None:
        if isinstance(group, BaseException):
            raise group
        yield group


@contextlib.contextmanager
def _interrupts_ignored() -> Iterator[None]:
    """SIGINT ignored meanwhile, where this thread can say so (a process started then inherits it)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


def _help(
    connection: Connection, location: DatabaseLocation, game: Game, digest: str | None, first: Mark | None
) -> None:
    """A helper's life: open the database, say READY, then answer each group sent until the pipe
    ends. Interrupts are the parent's to take (it stops its helpers). Any failure ends the helper
    with None said instead: the parent answers its groups, and says what is wrong in its own words."""
    from ttt_db.store.database import open_database

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with open_database(location, game=game, digest=digest, recorded=False) as database:
            database.prepare_arrays()
            connection.send(READY)
            gc.disable()
            for group in _received_groups(connection):
                connection.send(answer_group(database, group, first))
                _collected()
    except Exception:  # whatever it is, the parent meets it again where it answers the group
        with contextlib.suppress(OSError, ValueError):
            connection.send(None)
