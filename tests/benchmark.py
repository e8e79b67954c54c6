"""Measure every budget the issues name: median of several runs, whole commands in fresh processes.

    python tests/benchmark.py            # 5 runs each, the 4x4 games, the games over 16 cells (about 15 minutes)
    python tests/benchmark.py --runs 9
    python tests/benchmark.py --games none --core-games none   # 3x3 only (about a minute)
    python tests/benchmark.py --games 4x4k3,3x4k3   # the 3x3 budgets and these games
    python tests/benchmark.py --write-docs --huge 5x5k4   # and 5x5k4 on this machine (about an hour more)

Whole commands run the installed `ttt-db` console script. Their budgets are ratios to a
reference run timed alternately in the same run (a bare Python start-up; a bare sqlite3 read of
one row for a lookup; the C floor tests/floor/mnk_level.c, compiled here, by CPU time, for a build
or a verify), so a busy machine slows both sides. Exit 1 when a budget is missed. Timing lives here, never in the
unit tests.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final

from ttt_db.game.definition import TICTACTOE


@dataclass
class Measurement:
    name: str
    value: float
    budget: float | None  # None: shown for information, no budget
    unit: str
    higher_is_better: bool = False
    part: str | None = None  # HUGE: a game over 20 cells (`--huge`), kept in the record by runs without it

    @property
    def ok(self) -> bool:
        if self.budget is None:
            return True
        return self.value >= self.budget if self.higher_is_better else self.value <= self.budget

    def line(self) -> str:
        shown = f"{self.value:,.0f}" if self.value >= 1000 else f"{self.value:.4g}"
        if self.budget is None:
            return f"{self.name:<46} {shown:>12} {self.unit:<8} (for information)"
        relation = ">=" if self.higher_is_better else "<="
        verdict = "ok" if self.ok else "MISSED"
        return f"{self.name:<46} {shown:>12} {self.unit:<8} budget {relation} {self.budget:,} {verdict}"


def median_seconds(action: Callable[[], object], runs: int) -> float:
    timings = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        timings.append(time.perf_counter() - started)
    return statistics.median(timings)


def command(*args: str) -> list[str]:
    script = shutil.which("ttt-db")
    return [script, *args] if script else [sys.executable, "-m", "ttt_db.cli", *args]


def run_command(args: list[str], expected_codes: tuple[int, ...] = (0,)) -> None:
    completed = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    if completed.returncode not in expected_codes:
        raise SystemExit(f"{' '.join(args)} exited {completed.returncode}")


START_UP = [sys.executable, "-c", "pass"]
"""The reference run of a whole command's time budget: a bare Python start-up."""


def one_row_read(db: Path) -> list[str]:
    """The reference run of a lookup's budget: Python reading one row of the database with sqlite3."""
    uri = db.resolve().as_uri() + "?mode=ro"
    query = "select codes from ttt_core where depth = 0"
    return [sys.executable, "-c", f"import sqlite3; sqlite3.connect({uri!r}, uri=True).execute({query!r}).fetchall()"]


def against_reference(
    name: str,
    args: Callable[[], list[str]],
    reference: list[str],
    what: str,
    budget: float,
    runs: int,
    expected_codes: tuple[int, ...] = (0,),
    reference_codes: tuple[int, ...] = (0,),
) -> list[Measurement]:
    """A whole command's median time as a multiple of a reference run's, the two run alternately
    in the same run, so that a busy machine slows both: the budget is the ratio; the seconds are
    shown for information."""
    seconds, reference_seconds = [], []
    for _ in range(runs):
        reference_seconds.append(median_seconds(lambda: run_command(reference, reference_codes), 1))
        seconds.append(median_seconds(lambda: run_command(args(), expected_codes), 1))
    ratio = statistics.median(seconds) / statistics.median(reference_seconds)
    return [
        Measurement(name, ratio, budget, f"x {what}"),
        Measurement("  in seconds", statistics.median(seconds), None, "s"),
    ]


def whole_commands(db: Path, workdir: Path, runs: int) -> list[Measurement]:
    """The 3x3 commands' budgets, as ratios to a bare start-up (or, for a lookup, to a bare read of
    one row): today's absolute budgets (build 1 s, best-moves 0.35 s, checks 0.45-0.5 s) over
    the reference times of an idle project machine."""
    counter = iter(range(10_000))
    bot = workdir / "first_free_cell.py"  # a user's AI: asked at all 3,191 boards, each in its own process
    bot.write_text("def play(board):\n    return [board.index('.')]\n")
    learner = workdir / "learner.py"  # issue 35: a stochastic plug-in, a learner's epsilon-greedy shape
    learner.write_text(
        "def play(board):\n"
        "    free = [cell for cell, mark in enumerate(board) if mark == '.']\n"
        "    rest = 0.2 / len(free)\n"
        "    return {cell: rest + (0.8 if cell == free[0] else 0.0) for cell in free}\n"
    )
    raiser = workdir / "raises.py"  # issue 29: a failing AI costs its answer, not a restart
    raiser.write_text("def play(board):\n    raise ValueError(board)\n")
    where = ["--db", str(db)]
    return [
        Measurement(
            "ttt-db check RAISING-PLUG-IN --strong (3,191 boards)",
            median_seconds(lambda: run_command(command("check", f"{raiser}:play", "--strong", *where), (1,)), runs),
            2.0,
            "s",
        ),
        *against_reference(
            "ttt-db build (new file), whole command",
            lambda: command("build", "--quiet", "--db", str(workdir / f"b{next(counter)}.sqlite")),
            START_UP,
            "start-up",
            60,
            runs,
        ),
        *against_reference(
            "ttt-db best-moves BOARD, whole command",
            lambda: command("best-moves", "ox..x....", *where),
            one_row_read(db),
            "one-row read",
            20,
            runs,
        ),
        *against_reference(
            "ttt-db check ai14s --strong, whole command",
            lambda: command("check", "ai14s", "--strong", *where),
            START_UP,
            "start-up",
            30,
            runs,
            (1,),
        ),
        *against_reference(
            "ttt-db check ai14s --weak, whole command",
            lambda: command("check", "ai14s", "--weak", *where),
            START_UP,
            "start-up",
            30,
            runs,
        ),
        *against_reference(
            "ttt-db score STOCHASTIC-PLUG-IN / its check --strong",
            lambda: command("score", f"{learner}:play", "--json", *where),
            command("check", f"{learner}:play", "--strong", *where),
            "check --strong",
            2.0,
            runs,
            reference_codes=(1,),
        ),
        *against_reference(
            "ttt-db check PLUG-IN --strong (3,191 boards), whole command",
            lambda: command("check", f"{bot}:play", "--strong", *where),
            START_UP,
            "start-up",
            30,
            runs,
            (1,),
        ),
    ]


def peak_memory_mb(args: list[str]) -> float:
    """Peak resident memory of a command, read from a fresh parent that runs only it."""
    probe = (
        "import resource, subprocess, sys; subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, "
        "stderr=subprocess.DEVNULL); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    completed = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, check=True)
    return int(completed.stdout) / 1024


@dataclass(frozen=True)
class Usage:
    """What one run of a command took: wall seconds, CPU seconds (user and system, its children
    included) and its peak resident memory."""

    wall: float
    cpu: float
    peak_mb: float


def info_of(where: list[str]) -> dict[str, Any]:
    """`ttt-db info --json` of the database `where` names (its --game and --db)."""
    import json

    found: dict[str, Any] = json.loads(
        subprocess.run(command("info", "--json", *where), capture_output=True, check=True).stdout
    )
    return found


def usage(args: list[str], codes: tuple[int, ...] = (0,), env: dict[str, str] | None = None) -> Usage:
    """One run of a command that exits with one of `codes` (a check of a failing AI exits 1), from
    a fresh parent that runs only it."""
    import os

    probe = (
        "import resource, subprocess, sys, time; started = time.perf_counter(); "
        "code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode; "
        "used = resource.getrusage(resource.RUSAGE_CHILDREN); "
        "print(time.perf_counter() - started, used.ru_utime + used.ru_stime, used.ru_maxrss, code)"
    )
    completed = subprocess.run(
        [sys.executable, "-c", probe, *args],
        capture_output=True,
        text=True,
        check=True,
        env=None if env is None else {**os.environ, **env},
    )
    wall, cpu, peak_kb, code = completed.stdout.split()
    if int(code) not in codes:
        raise SystemExit(f"{' '.join(args)} exited {code}")
    return Usage(float(wall), float(cpu), int(peak_kb) / 1024)


def timed_with_peak_memory(args: list[str], codes: tuple[int, ...] = (0,)) -> tuple[float, float]:
    """(wall seconds, peak resident MB) of one run of a command (`usage`)."""
    used = usage(args, codes)
    return used.wall, used.peak_mb


LARGE_GAMES = ("4x4k4", "4x4k3")
BUILD_SECONDS = {"4x4k4": 20.0, "4x4k3": 12.0}
"""Issue 20's budgets: build 4x4k4 <= 20 s, <= 2 GB, file <= 120 MB, 4x4k3 <= 12 s; verify
4x4k4 <= 60 s; check perfect --strong on 4x4k4 <= 10 s; the smaller games within 10 s."""
SAMPLE_BOARDS = {
    "4x4k4": "o.x./..../..../....",
    "4x4k3": "o.../.x../..../....",
    "3x4k3": "o.../.x../....",
    "4x3k3": "o../.x./.../...",
}


def game_commands(game: str, workdir: Path, runs: int) -> list[Measurement]:
    """One game, built into a new file once, then queried, checked and verified: its build time,
    peak memory and size, a whole best-moves command, check perfect --strong, verify (which must
    pass), and 200 sampled positions against the tests' reference solver."""
    db = workdir / f"{game}.sqlite"
    where = ["--game", game, "--db", str(db)]
    seconds, peak = timed_with_peak_memory(command("build", "--quiet", *where))
    from ttt_db.game.definition import Game

    board = SAMPLE_BOARDS.get(game) or Game.parse(game).empty_board
    best = against_reference(
        f"ttt-db best-moves --game {game} BOARD, whole command",
        lambda: command("best-moves", board, *where),
        one_row_read(db),
        "one-row read",
        20,
        runs,
    )
    strong = median_seconds(lambda: run_command(command("check", "perfect", "--strong", *where)), min(runs, 3))
    verified, verify_peak = timed_with_peak_memory(command("verify", *where))
    large = game in LARGE_GAMES
    exported = (
        []
        if large
        else [
            Measurement(
                f"  {game}: export records unlike the reference's (of every position)",
                _export_unlike_reference(db, game),
                0,
                "",
            )
        ]
    )
    checked: list[Measurement] = []
    if game == "4x4k4":  # issues 36 and 56: many boards at once, as many as the issues name
        checked += [streamed_lookups(db, game, 100_000), posted_lookups(db, game, 10_000)]
    if game == "4x4k4":  # issue 56: the export in arrays
        checked += export_commands(game, db, workdir, positions=True)
    if game == "4x4k4":  # issue 35: every measure of a graded perfect player, over the core in arrays
        run_command(
            command("score", "perfect@0.9", "--json", *where)
        )  # its kernels compiled once, as a user's first run
        checked += against_reference(
            f"ttt-db score perfect@0.9 --game {game} / check perfect --strong",
            lambda: command("score", "perfect@0.9", "--json", *where),
            command("check", "perfect", "--strong", *where),
            "check perfect --strong",
            3.0,
            runs,
        )
    if game == "4x4k4":  # issue 30: a strong check of a failing AI, bounded whatever its failures
        check_seconds, check_peak = timed_with_peak_memory(command("check", "ai1s", "--strong", *where), codes=(1,))
        checked += [
            Measurement(f"ttt-db check ai1s --game {game} --strong", check_seconds, 60.0, "s"),
            Measurement("  its peak memory", check_peak, 2048.0, "MB"),
            Measurement(
                f"serve --game {game}: /api/position p99 while it checks ai1s",
                _position_p99(db, game, checking="ai1s"),
                10.0,
                "ms",
            ),
        ]
    return (
        exported
        + checked
        + [
            Measurement(f"ttt-db build --game {game}, whole command", seconds, BUILD_SECONDS.get(game, 10.0), "s"),
            Measurement("  its peak memory", peak, 2048.0 if large else 1024.0, "MB"),
            Measurement("  its file size", db.stat().st_size / 1e6, 120.0 if large else 20.0, "MB"),
            *best,
            Measurement(f"ttt-db check perfect --game {game} --strong", strong, 10.0, "s"),
            Measurement(f"ttt-db verify --game {game} (passes)", verified, 60.0, "s"),
            Measurement("  its peak memory", verify_peak, None, "MB"),
            Measurement(
                f"  {game}: sampled positions unlike the reference solver's", _unlike_reference(db, game), 0, ""
            ),
        ]
    )


def _export_unlike_reference(db: Path, game_name: str) -> int:
    """How many records of the game's whole export differ from the record tests/reference.py derives."""
    import io
    import json

    import reference

    from ttt_db.game.definition import Game
    from ttt_db.outputs.export import write_jsonl
    from ttt_db.store.database import open_database

    game = Game.parse(game_name)
    rules = reference.Rules(game.rows, game.columns, game.k)
    paths_to = reference.paths(rules)
    stream = io.StringIO()
    with open_database(db, game=game) as database:
        write_jsonl(database.all_positions(), stream)
    differing = len(paths_to) - len(stream.getvalue().splitlines())
    for line in stream.getvalue().splitlines():
        record = json.loads(line)
        expected = reference.export_record(record["board"], rules, paths_to)
        differing += {key: record[key] for key in expected} != expected
    return differing


def _unlike_reference(db: Path, game_name: str, sample: int = 200) -> int:
    """How many of `sample` random positions with at most 9 empty cells (the reference solver is
    plain Python) answer differently from tests/reference.py: score, remoteness, best moves."""
    import random

    import reference

    from ttt_db.game.definition import Game
    from ttt_db.store.database import open_database

    game = Game.parse(game_name)
    rules = reference.Rules(game.rows, game.columns, game.k)
    solve = reference.solver(rules)
    rng = random.Random(20)
    differing = 0
    with open_database(db, game=game) as database:
        keys = database.node_list_keys("all")
        boards = (game.board_of(keys[rng.randrange(len(keys))]) for _ in range(100 * sample))
        for board in [b for b in boards if b.count(".") <= 9][:sample]:
            stored, expected = database.lookup(board), solve(board)
            best = reference.best_moves(board, rules) if stored.status == "playing" else ()
            if (stored.score, stored.remoteness, stored.best_moves) != (expected.score, expected.remoteness, best):
                differing += 1
    return differing


def search_commands(db: Path, workdir: Path, runs: int) -> list[Measurement]:
    """`search alphabeta --trace` from the empty board, and `check-trace` on the plain minimax trace
    (549,946 nodes, 1.1 M events): its time, and its memory beyond that of checking a small trace."""
    traced = against_reference(
        "ttt-db search alphabeta --trace, whole command",
        lambda: command("search", "alphabeta", "--trace", str(workdir / "ab.jsonl"), "--db", str(db)),
        START_UP,
        "start-up",
        30,
        runs,
    )
    big, small = workdir / "minimax.jsonl", workdir / "ab.jsonl"
    run_command(command("search", "minimax", "--trace", str(big), "--db", str(db)))
    checked = median_seconds(lambda: run_command(command("check-trace", str(big), "--db", str(db))), min(runs, 3))
    growth = peak_memory_mb(command("check-trace", str(big), "--db", str(db))) - peak_memory_mb(
        command("check-trace", str(small), "--db", str(db))
    )
    return [
        *traced,
        Measurement("ttt-db check-trace (minimax, 1.1 M events)", checked, 10.0, "s"),
        Measurement("  its memory beyond an 832-node trace's", growth, 25.0, "MB"),
    ]


async def _load(host: str, port: int, paths: list[str], clients: int, seconds: float) -> list[float]:
    """`clients` keep-alive connections asking `paths` in turn for `seconds`; every latency."""

    latencies: list[float] = []

    async def client(offset: int) -> None:
        reader, writer = await asyncio.open_connection(host, port)
        deadline = time.perf_counter() + seconds
        number = offset
        while time.perf_counter() < deadline:
            path = paths[number % len(paths)]
            number += clients
            started = time.perf_counter()
            writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
            head = await reader.readuntil(b"\r\n\r\n")
            length = next(
                int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")
            )
            body = await reader.readexactly(length)
            latencies.append(time.perf_counter() - started)
            if not head.startswith(b"HTTP/1.1 200") or not body:
                raise SystemExit(f"{path} answered {head[:40]!r}")
        writer.close()

    await asyncio.gather(*(client(i) for i in range(clients)))
    return latencies


def serve_commands(db: Path, runs: int) -> list[Measurement]:
    """`ttt-db serve` under 8 concurrent keep-alive clients for 10 s asking positions (every
    position of the game, in turn), and the page's first load to a playable board in headless
    Chromium (median of `runs`)."""
    import random
    import statistics as stats

    from ttt_db.store.database import open_database

    with open_database(db) as database:
        boards = [position.cells for position in database.all_positions()]
    random.Random(1).shuffle(boards)
    paths = [f"/api/position?board={board}" for board in boards]
    server = subprocess.Popen(command("serve", "--port", "0", "--db", str(db)), stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        url = server.stdout.readline().split(" at ")[1].split()[0]
        host, port = url.removeprefix("http://").rstrip("/").split(":")
        latencies = asyncio.run(_load(host, int(port), paths, 8, 10.0))
        rate = len(latencies) / 10.0
        p99 = stats.quantiles(latencies, n=100)[98] * 1000
        measurements = [
            Measurement("serve: position requests, 8 clients, 10 s", rate, 2000, "per s", higher_is_better=True),
            Measurement("  their p99 latency", p99, 10.0, "ms"),
        ]
        measurements.append(
            Measurement(
                "serve: position p99 while 8 minimax searches run",
                _p99_under_searches(url, host, int(port)),
                10.0,
                "ms",
            )
        )
        measurements.append(
            Measurement("serve: position p99 with 600 idle sockets open", _p99_beside_idle(host, int(port)), 10.0, "ms")
        )
        first_load = _first_load(url, runs)
        if first_load is not None:
            in_page, whole, step = first_load
            measurements += [
                Measurement("serve: first load to a playable board (Chromium)", in_page, 300.0, "ms"),
                Measurement("  seen from Playwright (new context, page, goto)", whole, None, "ms"),
                Measurement("serve: a search replay's step in the browser (1,242 nodes)", step, 16.0, "ms"),
            ]
        return measurements
    finally:
        server.terminate()
        server.wait(timeout=10)


def _p99_beside_idle(host: str, port: int, idle: int = 600, count: int = 1_000) -> float:
    """p99 milliseconds of /api/position on one connection while `idle` other sockets are open and
    say nothing (the server sheds the longest-idle as it nears its connection limit)."""
    import socket

    crowd = [socket.create_connection((host, port)) for _ in range(idle)]
    try:
        _api(host, port, "/api/position?board=ox..x....")  # answered 200, not 503
        paths = ["/api/position?board=ox..x...."] * count
        latencies = asyncio.run(_load_each_once(host, port, paths))
        return statistics.quantiles(latencies, n=100)[98] * 1000
    finally:
        for connection in crowd:
            connection.close()


def _p99_under_searches(url: str, host: str, port: int, seconds: float = 8.0) -> float:
    """p99 milliseconds of /api/position, asked every 10 ms on one connection, while eight clients
    keep asking for a full minimax search from the empty board (549,946 nodes each)."""
    import threading
    import urllib.error
    import urllib.request

    stop = time.monotonic() + seconds

    def searcher() -> None:
        while time.monotonic() < stop:
            try:
                urllib.request.urlopen(f"{url}api/search?algorithm=minimax&board=.........", timeout=60).read()
            except urllib.error.HTTPError as refused:  # a busy server's 503 (a search over its time): ask again
                if refused.code != 503:
                    raise

    threads = [threading.Thread(target=searcher) for _ in range(8)]
    for thread in threads:
        thread.start()
    time.sleep(0.5)
    latencies: list[float] = []

    async def client() -> None:
        reader, writer = await asyncio.open_connection(host, port)
        request = b"GET /api/position?board=ox..x.... HTTP/1.1\r\nHost: bench\r\n\r\n"
        while time.monotonic() < stop - 0.5:
            started = time.perf_counter()
            writer.write(request)
            await writer.drain()
            head = await reader.readuntil(b"\r\n\r\n")
            length = next(
                int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")
            )
            await reader.readexactly(length)
            latencies.append(time.perf_counter() - started)
            await asyncio.sleep(0.01)
        writer.close()

    asyncio.run(client())
    for thread in threads:
        thread.join()
    return statistics.quantiles(latencies, n=100)[98] * 1000


def _first_load(url: str, runs: int) -> tuple[float, float, float] | None:
    """Median milliseconds from navigation start to a playable board, as the page marks it
    (`performance.mark("ttt-db-ready")`: hints drawn), and as Playwright sees it from `goto`; and
    the milliseconds each step of the replay of alphabeta-shortest's trace from the empty board takes
    (the most of the runs' means)."""
    chromium = shutil.which("chromium")
    if chromium is None:
        print("no chromium: the first-load measurement is skipped (apt-get install chromium)")
        return None
    from playwright.sync_api import sync_playwright

    args = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
    ]
    in_page, whole, step = [], [], []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=args)
        for _ in range(runs):
            context = browser.new_context()
            page = context.new_page()
            started = time.perf_counter()
            page.goto(url + "?hints=1")  # hints are off by default: the load measured draws them
            page.wait_for_selector("body[data-ready='1'] #board .cell.draw")
            whole.append((time.perf_counter() - started) * 1000)
            in_page.append(page.evaluate("performance.getEntriesByName('ttt-db-ready')[0].startTime"))
            page.goto(url + "?view=search")
            page.wait_for_selector("body[data-ready='1']")
            page.select_option("#search-algorithm", "alphabeta-shortest")
            page.locator("#search-run").click()
            page.wait_for_selector("#player:not([hidden])")
            step.append(
                page.evaluate(
                    "() => { const t = performance.now(); let n = 0; while (stepTrace()) n++; "
                    "return (performance.now() - t) / n; }"
                )
            )
            context.close()
        browser.close()
    return statistics.median(in_page), statistics.median(whole), max(step)


def in_process(db_path: Path, runs: int) -> list[Measurement]:
    from ttt_db.ais.registry import load_ai
    from ttt_db.checks.report import run_checks
    from ttt_db.checks.weak import check_weak
    from ttt_db.play.match import run_match
    from ttt_db.store.database import open_database

    measurements = []
    with open_database(db_path) as db:
        boards = [p.cells for p in db.all_positions()]

        def lookups() -> None:
            for board in boards:
                db.lookup(board)

        rounds = 20
        seconds = median_seconds(lambda: [lookups() for _ in range(rounds)], runs)
        measurements.append(
            Measurement("lookups, warm handle", rounds * len(boards) / seconds, 200_000, "per s", higher_is_better=True)
        )

        ai14s = load_ai("ai14s").play
        measurements.append(
            Measurement(
                "check ai14s --strong (3,191 boards), over the core",
                median_seconds(lambda: run_checks(load_ai("ai14s"), db, weak=False), runs),
                0.08,
                "s",
            )
        )
        measurements.append(
            Measurement(
                "check ai14s --weak", median_seconds(lambda: check_weak(ai14s, TICTACTOE, "draw"), runs), 0.025, "s"
            )
        )
        perfect = load_ai("perfect", lambda: db).play
        measurements.append(
            Measurement(
                "check perfect --weak", median_seconds(lambda: check_weak(perfect, TICTACTOE, "draw"), runs), 0.012, "s"
            )
        )

        def games_per_second(first: str, second: str, games: int) -> float:
            ai1, ai2 = load_ai(first, lambda: db).play, load_ai(second, lambda: db).play
            seconds = median_seconds(lambda: run_match(ai1, ai2, games, seed=1, game=TICTACTOE), runs)
            return 2 * games / seconds

        for first, second, budget in (
            ("ai2s", "ai2s", 50_000),
            ("ai14s", "ai2s", 6_000),
            ("perfect", "perfect", 40_000),
        ):
            measurements.append(
                Measurement(
                    f"match {first} {second} -n 50000",
                    games_per_second(first, second, 50_000),
                    budget,
                    "games/s",
                    higher_is_better=True,
                )
            )
    return measurements


FIRST_CALL = """
import gc, json, sys, time
sys.path.insert(0, {tests!r})
import reference
from ttt_db.ais.registry import load_ai
from ttt_db.checks import report, strong, weak  # the code is loaded: the call itself is timed, cold
from ttt_db.ranked import blocks, marks  # the walks' code too, which the checks load at their first call
from ttt_db.store.database import open_database
mode, name = {mode!r}, {name!r}
db = open_database({db!r})
db.meta()
ai = load_ai(name, lambda: db)
if mode.startswith("reference"):
    lists = json.load(open({lists!r}))
    best = lists["best"]
    gc.collect()
    started = time.perf_counter()
    if mode == "reference-strong":
        reference.check_strong(ai.play, lists["decision"], best)
    elif mode == "reference-canonical":
        reference.check_strong(ai.play, lists["decision_canonical"], best)
    elif mode == "reference-dict":
        reference.check_strong(best.__getitem__, lists["decision"], best)
    else:
        reference.check_weak(ai.play)
else:
    gc.collect()
    started = time.perf_counter()
    report.run_checks(ai, db, weak=mode == "weak", strong=mode != "weak", canonical=mode == "canonical")
print(time.perf_counter() - started)
"""

SMALL_END_CHECKS: Final = (
    ("perfect", "strong", "reference-dict", "a plain dict's check", 1.0),
    ("ai14s", "strong", "reference-strong", "reference list check", 1.0),
    ("ai14s", "canonical", "reference-canonical", "reference list check of its 431", 1.5),
    ("perfect", "weak", "reference-weak", "reference list check", 0.5),
)
"""Issue 56's budgets at the small end: (AI, our check, the reference's, what it is, budget)."""


def small_end(db: Path, workdir: Path, runs: int) -> list[Measurement]:
    """Issues 40 and 56's budgets at the small end, on 3x3: each check's first call in a fresh process
    (its code loaded, its data cold) against tests/reference.py's list-based check of the same AI
    (the lists given), each clock started after a full collection (the imports leave the process's
    first older-generation collection pending, about a millisecond: loading the reference's lists
    set it off before its clock, so our side alone paid it), `check ai14s` as whole commands against
    a bare `import typer, sqlite3`, and the solve of every level in-process against the reference
    solver's."""
    import json

    from ttt_db.store.database import open_database

    lists = workdir / "lists.json"
    with open_database(db) as database:
        decision = database.node_list("decision")
        table = database.best_moves_table()
        lists.write_text(
            json.dumps(
                {
                    "decision": decision,
                    "decision_canonical": database.node_list("decision_canonical"),
                    "best": {b: list(table[b]) for b in decision},
                }
            )
        )

    def first_call(mode: str, name: str) -> float:
        script = FIRST_CALL.format(
            tests=str(Path(__file__).resolve().parent), mode=mode, name=name, db=str(db), lists=str(lists)
        )
        completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
        return float(completed.stdout)

    results = []
    for name, kind, reference_kind, reference_name, budget in SMALL_END_CHECKS:
        ours, theirs = [], []
        for _ in range(runs):
            theirs.append(first_call(reference_kind, name))
            ours.append(first_call(kind, name))
        results += [
            Measurement(
                f"3x3 {kind} check of {name}, first call / {reference_name}",
                statistics.median(ours) / statistics.median(theirs),
                budget,
                "x",
            ),
            Measurement("  in seconds", statistics.median(ours), None, "s"),
        ]
    typer_and_sqlite = [sys.executable, "-c", "import typer, sqlite3"]
    for flag in ("--weak", "--strong"):
        codes = (0,) if flag == "--weak" else (1,)
        results += against_reference(
            f"ttt-db check ai14s {flag}, whole command (3x3)",
            lambda flag=flag: command("check", "ai14s", flag, "--db", str(db)),
            typer_and_sqlite,
            "import typer, sqlite3",
            2.5,
            runs,
            codes,
        )
    solve = f"""
import sys, time
sys.path.insert(0, {str(Path(__file__).resolve().parent)!r})
import reference
from ttt_db.game.definition import TICTACTOE
from ttt_db.ranked.step import solve_core
from ttt_db.ranked.tables import RankedTables
started = time.perf_counter()
reference.Solver(reference.TICTACTOE)(reference.TICTACTOE.empty)
theirs = time.perf_counter() - started
started = time.perf_counter()
for _ in solve_core(RankedTables(TICTACTOE)):
    pass
print(time.perf_counter() - started, theirs)
"""
    timings = [
        subprocess.run([sys.executable, "-c", solve], capture_output=True, text=True, check=True).stdout.split()
        for _ in range(runs)
    ]
    ours = statistics.median(float(ours) for ours, _ in timings)
    theirs = statistics.median(float(theirs) for _, theirs in timings)
    results += [
        Measurement("3x3 solve of every level in-process / reference solver", ours / theirs, SOLVE_RATIO, "x"),
        Measurement("  in milliseconds", 1000 * ours, None, "ms"),
    ]
    return results


def policy_measures(db: Path, runs: int) -> list[Measurement]:
    """Issue 35's budgets on 3x3: every measure of a built-in policy against the check of the same
    AI (in-process, warm), and uniform random's exploitability against OpenSpiel's own (it walks
    the game tree) where OpenSpiel is installed."""
    from ttt_db.ais.registry import load_ai
    from ttt_db.checks.measures import measure_policy
    from ttt_db.checks.report import run_checks
    from ttt_db.store.database import open_database

    results = []
    with open_database(db) as database:
        database.best_moves_table()
        for name in ("perfect", "ai2s", "ai14s", "perfect@0.9"):
            ai = load_ai(name, lambda: database)
            checked = median_seconds(lambda ai=ai: run_checks(ai, database), runs)
            measured = median_seconds(lambda ai=ai: measure_policy(ai, database), runs)
            results += [
                Measurement(f"ttt-db score {name}: every measure / its check", measured / checked, 3.0, "x"),
                Measurement("  in seconds", measured, None, "s"),
            ]
        try:
            import pyspiel
            from open_spiel.python import policy as spiel_policy
            from open_spiel.python.algorithms import exploitability
        except ImportError:
            return results
        game = pyspiel.load_game("tic_tac_toe")
        started = time.perf_counter()
        exploitability.nash_conv(game, spiel_policy.UniformRandomPolicy(game))
        theirs = time.perf_counter() - started
        ours = median_seconds(lambda: measure_policy(load_ai("ai2s", lambda: database), database), runs)
    return results + [
        Measurement("uniform random's NashConv / OpenSpiel's nash_conv (3x3)", ours / theirs, 0.05, "x"),
        Measurement("  OpenSpiel's, in seconds", theirs, None, "s"),
        *_learner_table(db),
    ]


def _learner_table(db: Path) -> list[Measurement]:
    """Issue 35's "done when" on tic-tac-toe itself: a trained Q-learner's softmax policy, written as
    a policy file and scored by the whole command, against OpenSpiel's `exploitability` of the same
    policy (a tree walk: tens of seconds, too long for the suite, which does it on a 2x3 board)."""
    import json
    import math
    import tempfile

    from open_spiel.python.algorithms import exploitability
    from spiel_tables import softmax_table

    from ttt_db.ais.openspiel import spiel_game
    from ttt_db.game.definition import TICTACTOE

    tabular, table = softmax_table(TICTACTOE, 3_000, seed=3)
    theirs = exploitability.exploitability(spiel_game(TICTACTOE), tabular)
    with tempfile.TemporaryDirectory() as folder:
        spec = Path(folder) / "q_table.json"
        spec.write_text(json.dumps({"game": "3x3k3", "policy": table}))
        scored = subprocess.run(
            command("score", str(spec), "--json", "--db", str(db)), capture_output=True, text=True, check=True
        )
    ours = json.loads(scored.stdout)["exploitability"]
    print(f"a Q-learner's softmax table on tic_tac_toe: exploitability {ours} (OpenSpiel's {theirs})")
    return [
        Measurement(
            "a Q-learner's softmax table (3x3, from its file): exploitability unlike OpenSpiel's",
            float(not (0 < theirs < 1 and math.isclose(ours, theirs, rel_tol=1e-9))),
            0,
            "",
        )
    ]


def data_small(db: Path, workdir: Path) -> list[Measurement]:
    """Issue 36's budgets on 3x3: what the plain tables add to the default file (a build with
    --no-tables beside it), and POST /api/positions of 10,000 boards: its p99 over requests from a
    warm server, and its first answer (each board's position derived then)."""
    bare = workdir / "bare.sqlite"
    run_command(command("build", "--quiet", "--no-tables", "--db", str(bare)))
    added = (db.stat().st_size - bare.stat().st_size) / 1e3
    bare.unlink()
    from starlette.testclient import TestClient

    from ttt_db.store.database import open_database
    from ttt_db.web.app import create_app

    with open_database(db) as database:
        boards = [position.cells for position in database.all_positions()]
        batch = (boards * 2)[:10_000]
        with TestClient(create_app(database)) as client:
            started = time.perf_counter()
            client.post("/api/positions", json=batch).raise_for_status()
            first = time.perf_counter() - started
            latencies = []
            for _ in range(20):
                started = time.perf_counter()
                client.post("/api/positions", json=batch).raise_for_status()
                latencies.append(time.perf_counter() - started)
    return [
        Measurement("plain tables: bytes they add to the 3x3 file", added, 100.0, "KB"),
        Measurement(
            "POST /api/positions, 10,000 3x3 boards: p99", statistics.quantiles(latencies, n=100)[98], 0.5, "s"
        ),
        Measurement("  its first answer (every position derived)", first, None, "s"),
    ]


COMPILE_TIMES = """
import json, sys
from pathlib import Path
from numba.core import event
from ttt_db.build import build_database
from ttt_db.game.definition import Game

with event.install_recorder("numba:compile") as recorded:
    build_database(Path(sys.argv[1]), game=Game.parse(sys.argv[2]))
times, open_at, depth = {}, [], 0
for at, happened in recorded.buffer:
    if happened.is_start:
        open_at.append(at)
        continue
    started = open_at.pop()
    if not open_at:  # a kernel compiled for itself, its callees within it
        name = happened.data["dispatcher"].py_func.__name__
        times[name] = times.get(name, 0.0) + at - started
print(json.dumps(times))
"""


FIRST_USE_RATIO: Final = 3.0
"""Issue 56: a fresh installation's first build against the warm one, by CPU time; where numba's
compiling alone keeps it above, the issue has the row reported (no budget) and each kernel's
compile time named, and the first build less its compiling is held to the ratio instead."""


FIRST_RUNS: Final = (
    ("check", "perfect", "--strong"),
    ("score", "perfect@0.9"),
)
"""Issue 56: commands whose first run after a fresh installation's first build the benchmark
reports (the kernels they share with the build already compiled; theirs compiled then, the
measures' on threads of their own)."""


def first_use(game: str, workdir: Path) -> list[Measurement]:
    """Issue 56: a fresh installation's first build (numba's cache empty) against the warm one, by
    CPU time, and each kernel's compile time in a first build (numba's compile events, one CPU
    each, so their wall time is their CPU time); then the first run of each of FIRST_RUNS against
    its warm run (a first run that fails stops the benchmark: `usage`)."""
    import json
    import os

    fresh = workdir / "numba-cache"
    where = ["--game", game, "--db", str(workdir / "first.sqlite")]
    cold = usage(command("build", "--quiet", "--force", *where), env={"NUMBA_CACHE_DIR": str(fresh)})
    firsts = [usage(command(*args, *where), env={"NUMBA_CACHE_DIR": str(fresh)}) for args in FIRST_RUNS]
    warm = usage(command("build", "--quiet", "--force", *where), env={"NUMBA_CACHE_DIR": str(fresh)})
    warms = [usage(command(*args, *where), env={"NUMBA_CACHE_DIR": str(fresh)}) for args in FIRST_RUNS]
    shutil.rmtree(fresh)
    compiled = subprocess.run(
        [sys.executable, "-c", COMPILE_TIMES, str(workdir / "first-in-process.sqlite"), game],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "NUMBA_CACHE_DIR": str(fresh)},
    )
    shutil.rmtree(fresh)
    (workdir / "first.sqlite").unlink()
    (workdir / "first-in-process.sqlite").unlink()
    times: dict[str, float] = json.loads(compiled.stdout)
    compiling = sum(times.values())
    rest = (cold.cpu - compiling) / warm.cpu
    return [
        Measurement(
            f"first ttt-db build --game {game} (fresh numba cache) / warm (CPU)",
            cold.cpu / warm.cpu,
            None if rest <= FIRST_USE_RATIO else FIRST_USE_RATIO,
            "x",
        ),
        Measurement("  the same less its kernels' compiling / warm (CPU)", rest, FIRST_USE_RATIO, "x"),
        Measurement("  of which compiling kernels", compiling, None, "s"),
        *(
            Measurement(f"    compiling {name}", seconds, None, "s")
            for name, seconds in sorted(times.items(), key=lambda item: -item[1])
        ),
        *(
            Measurement(
                f"first ttt-db {' '.join(args)} --game {game}, after the first build / warm (CPU)",
                first.cpu / again.cpu,
                None,
                "x",
            )
            for args, first, again in zip(FIRST_RUNS, firsts, warms, strict=True)
        ),
    ]


EXPORT_BUDGETS: Final = {"parquet": 5.0, "jsonl": 8.0}
"""Issue 56: an export of every class against verify, both by CPU time: a data set, JSON lines."""


def export_commands(game: str, db: Path, workdir: Path, *, positions: bool) -> list[Measurement]:
    """Issue 56: the export of every class (and, with `positions`, of every position) as a Parquet
    data set and as JSON lines (to /dev/null), each by CPU time against verify's, verify run
    before and after them; pyarrow's own writing of the data set's record batches against the
    same verify (`parquet_writing_alone`); the class rows per CPU second."""
    import os

    where = ["--game", game, "--db", str(db)]

    verify = [usage(command("verify", *where)).cpu]
    folder = workdir / "export-set"
    runs: list[tuple[str, str, Usage]] = []
    for rows in ("classes", "positions") if positions else ("classes",):
        runs.append(
            (
                rows,
                "parquet",
                usage(command("export", "--format", "parquet", "--rows", rows, "-o", str(folder), *where)),
            )
        )
        shutil.rmtree(folder)
        runs.append((rows, "jsonl", usage(command("export", "--rows", rows, "-o", os.devnull, *where))))
    verify.append(usage(command("verify", *where)).cpu)
    verify_cpu = statistics.mean(verify)
    results = [Measurement(f"ttt-db verify --game {game} (CPU), beside the exports", verify_cpu, None, "s")]
    for rows, format, used in runs:
        results += [
            Measurement(
                f"ttt-db export --game {game} --format {format} --rows {rows} / verify (CPU)",
                used.cpu / verify_cpu,
                EXPORT_BUDGETS[format] if rows == "classes" else None,
                "x",
            ),
            Measurement("  its peak memory", used.peak_mb, 2048.0, "MB"),
        ]
        if (rows, format) == ("classes", "parquet"):
            results.append(
                Measurement(
                    "  pyarrow's writing alone of its record batches (sampled, scaled to every class) / verify (CPU)",
                    parquet_writing_alone(db, workdir) / verify_cpu,
                    None,
                    "x",
                )
            )

    info = info_of(where)
    classes = info["figures"]["canonical_positions"]
    jsonl = next(used for rows, format, used in runs if (rows, format) == ("classes", "jsonl"))
    results.append(Measurement(f"  {game} classes as JSON lines per CPU second", classes / jsonl.cpu, None, "rows/s"))
    return results


def parquet_writing_alone(db: Path, workdir: Path, stride: int = 8) -> float:
    """The CPU seconds pyarrow's Parquet writer alone would spend on the data set of every class:
    one record batch in `stride` made as the export makes them, each written (the calling thread's
    CPU, the writer's settings the export's) to one file, scaled by rows to every class. The
    floor under `export --format parquet` that no faster making of its batches can go below."""
    import time

    from ttt_db.outputs.dataset import RecordBatches, parquet_writer
    from ttt_db.outputs.export_rows import RowMode, database_rows
    from ttt_db.store.database import open_database

    rows = total = 0
    seconds = 0.0
    path = workdir / "writing-alone.parquet"
    with open_database(db) as database:
        batches = RecordBatches(database.game)
        writer = parquet_writer(path, batches.schema)
        for index, block in enumerate(database_rows(database, None, RowMode.classes)):
            total += block.rows
            if index % stride:
                continue
            batch = batches.batch(block, "train")
            started = time.thread_time()
            writer.write_batch(batch)
            seconds += time.thread_time() - started
            rows += block.rows
        started = time.thread_time()
        writer.close()
        seconds += time.thread_time() - started
    path.unlink()
    return seconds * total / rows


def streamed_lookups(db: Path, game: str, count: int) -> Measurement:
    """`ttt-db best-moves -` over `count` distinct boards in play met in random games: boards
    answered per second, end to end (the command's start included)."""
    chosen = _boards_in_play(game, count, 36)

    def answered(boards: list[str]) -> float:
        started = time.perf_counter()
        done = subprocess.run(  # bytes: this process reads the answers without decoding them
            command("best-moves", "-", "--game", game, "--db", str(db)),
            input=("\n".join(boards) + "\n").encode(),
            capture_output=True,
            check=True,
        )
        seconds = time.perf_counter() - started
        assert done.stdout.count(b"\n") == len(boards)
        return seconds

    answered(chosen[:1000])  # its kernels compiled once, as a user's first run
    seconds = statistics.median(answered(chosen) for _ in range(3))
    return Measurement(
        f"ttt-db best-moves - --game {game}, {len(chosen):,} boards", len(chosen) / seconds, 20_000, "boards/s", True
    )


def _boards_in_play(game_name: str, count: int, seed: int) -> list[str]:
    """`count` distinct boards in play met in random games (the empty board left out), in the order met."""
    import random

    from ttt_db.game.definition import Game
    from ttt_db.game.rules import empty_cells, mover_at, play, status

    rules = Game.parse(game_name)
    draw = random.Random(seed)
    found: dict[str, None] = {}
    while len(found) < count:
        board = rules.empty_board
        while status(board, rules) == "playing":
            if board.count(".") < rules.cells:
                found[board] = None
            board = play(board, draw.choice(empty_cells(board)), mover_at(rules.cells - board.count(".")))
    return list(found)[:count]


def posted_lookups(db: Path, game: str, count: int) -> Measurement:
    """POST /api/positions of `count` boards to a warm `ttt-db serve` (it has answered two batches of
    other boards first: its kernels loaded, the chunks their families reach read): boards answered
    per second, each request of boards it has not answered before (no answer from its cache), the
    median of three."""
    import json
    import urllib.request

    chosen = _boards_in_play(game, 5 * count, 60)
    server = subprocess.Popen(
        command("serve", "--port", "0", "--game", game, "--db", str(db)), stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        address = server.stdout.readline().split(" at ")[1].split()[0].rstrip("/")

        def answered(boards: list[str]) -> float:
            request = urllib.request.Request(
                f"{address}/api/positions", json.dumps(boards).encode(), {"Content-Type": "application/json"}
            )
            started = time.perf_counter()
            with urllib.request.urlopen(request, timeout=600) as response:
                body = response.read()
            seconds = time.perf_counter() - started
            assert len(json.loads(body)["positions"]) == len(boards)
            return seconds

        answered(chosen[:count])  # warm
        answered(chosen[count : 2 * count])
        seconds = statistics.median(answered(chosen[i * count : (i + 1) * count]) for i in range(2, 5))
    finally:
        server.terminate()
        server.wait(timeout=10)
    return Measurement(
        f"POST /api/positions, {count:,} {game} boards, warm server", count / seconds, 20_000, "boards/s", True
    )


SOLVE_RATIO: Final = round(0.003 / 0.066, 3)
"""Issue 40: the 3x3 solve no slower than before the ranked core (3 ms) when tests/reference.py's
solver took 66 ms on this machine: the budget is that ratio, measured in the same run."""


FLOOR_SOURCE = Path(__file__).resolve().parent / "floor" / "mnk_level.c"
"""The C floor: the level step over canonical sets (SYM=1), in C with OpenMP, compiled in the run."""
CORE_GAMES = ("3x6k3", "2x9k3", "3x6k4", "4x5k3", "4x5k4")
"""Issue 25: games over 16 cells (and two below), built by ttt-db and by the C floor; each game's
positions and classes per depth and empty-board value must equal the floor's."""
CENSUS_SAMPLES = ("2x12k4", "3x8k4", "4x6k4")
"""Issue 60: census games of 24 cells held to 2x the floor's CPU (--core-games with these: about
an hour here)."""
FLOOR_RATIO = {"4x5k4": 2.0, **dict.fromkeys(CENSUS_SAMPLES, 2.0)}
"""Issue 40: a build's CPU time over the floor's SYM=1 solve; the other core games keep issue 25's 5x."""


def compile_floor(workdir: Path) -> Path | None:
    """tests/floor/mnk_level.c compiled (OpenMP, libzstd), or None (no compiler): the ratios are skipped."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        print("no C compiler: the ratios to the C floor are skipped")
        return None
    binary = workdir / "mnk_level"
    for zstd in ("-l:libzstd.so.1", "-lzstd"):
        built = subprocess.run(
            [compiler, "-O3", "-march=native", "-fopenmp", "-o", str(binary), str(FLOOR_SOURCE), zstd],
            capture_output=True,
            check=False,
        )
        if built.returncode == 0:
            return binary
    print("the C floor does not compile here (it needs OpenMP and libzstd): its ratios are skipped")
    return None


def run_floor(binary: Path, game: str) -> tuple[Usage, dict[str, object]]:
    """(what it took, the floor's JSON) of one solve of the game by the C floor over canonical sets
    (SYM=1), on every core."""
    import json
    import os
    import re

    rows, columns, k = re.fullmatch(r"(\d+)x(\d+)k(\d+)", game).groups()  # type: ignore[union-attr]
    probe = (
        "import resource, subprocess, sys, time; started = time.perf_counter(); "
        "out = subprocess.run(sys.argv[1:], capture_output=True, text=True, check=True).stdout; "
        "used = resource.getrusage(resource.RUSAGE_CHILDREN); "
        "print(time.perf_counter() - started, used.ru_utime + used.ru_stime, used.ru_maxrss); print(out)"
    )
    completed = subprocess.run(
        [sys.executable, "-c", probe, str(binary), rows, columns, k],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "SYM": "1"},
    )
    first, _, rest = completed.stdout.partition("\n")
    wall, cpu, peak = first.split()
    return Usage(float(wall), float(cpu), int(peak) / 1024), json.loads(rest)


def core_commands(game: str, workdir: Path, floor: Path | None) -> list[Measurement]:
    """One game built by ttt-db and solved by the C floor, alternately (floor, build, floor): the
    build's CPU time over the floor's mean, its peak memory and size; its counts against the
    floor's; for 4x5k4 the core built in-process beside the floor, a whole best-moves command,
    verify and the strong check against the floor's time."""

    db = workdir / f"{game}.sqlite"
    where = ["--game", game, "--db", str(db)]
    floor_runs: list[float] = []
    floor_result: dict[str, object] = {}
    if floor is not None:
        used, floor_result = run_floor(floor, game)
        floor_runs.append(used.cpu)
    built = usage(command("build", "--quiet", *where))
    if floor is not None:
        floor_runs.append(run_floor(floor, game)[0].cpu)
    info = info_of(where)
    sample = game in CENSUS_SAMPLES  # issue 60 holds these to the floor alone: issue 25's sizes are for 20 cells
    results = [
        Measurement(f"ttt-db build --game {game}, whole command", built.wall, None, "s"),
        Measurement("  its CPU time", built.cpu, None, "s"),
        Measurement("  its peak memory", built.peak_mb, None if sample else 4096.0, "MB"),
        Measurement("  its file size", db.stat().st_size / 1e6, None if sample else 64.0, "MB"),
    ]
    if floor is not None:
        floor_cpu = statistics.mean(floor_runs)
        results += [
            Measurement(f"  the C floor's CPU time ({game}, SYM=1)", floor_cpu, None, "s"),
            Measurement("  build / C floor (CPU)", built.cpu / floor_cpu, FLOOR_RATIO.get(game, 5.0), "x"),
            unlike_floor(info, floor_result),
        ]
        if game == "4x5k4":
            core, _ = in_process_core(game)
            verified = usage(command("verify", *where))
            checked = usage(command("check", "perfect", "--strong", *where))
            stats = usage(command("stats", *where))
            suite = usage(command("suite", "-n", "10000", "--seed", "1", "-o", str(workdir / "suite.jsonl"), *where))
            run_command(command("score", "perfect@0.9", "--json", "--game", "3x4k3", "--db", str(workdir / "s.sqlite")))
            scored = usage(command("score", "perfect@0.9", "--no-best-response", "--json", *where))  # issue 35
            every = usage(command("score", "perfect@0.9", "--json", *where))
            results += export_commands(game, db, workdir, positions=False)
            results += [
                Measurement("  its core in-process / C floor (CPU)", core / floor_cpu, None, "x"),
                *_cluster_build(game, workdir, db, built),
                *against_reference(
                    f"ttt-db best-moves --game {game} BOARD, whole command",
                    lambda: command("best-moves", "o.x../...../...../.....", *where),
                    one_row_read(db),
                    "one-row read",
                    20,
                    5,
                ),
                Measurement(f"ttt-db verify --game {game} / C floor (CPU)", verified.cpu / floor_cpu, 10.0, "x"),
                Measurement(f"ttt-db check perfect --game {game} --strong", checked.wall, None, "s"),
                Measurement(f"ttt-db stats --game {game} / verify (wall)", stats.wall / verified.wall, 1.2, "x"),
                Measurement(f"ttt-db suite --game {game} -n 10000", suite.wall, 60.0, "s"),
                Measurement(
                    f"ttt-db score perfect@0.9 --game {game} --no-best-response (against perfect and random) "
                    "/ check perfect --strong",
                    scored.wall / checked.wall,
                    5.0,  # issue 56 (issue 35's 3x within 2 GB withdrawn: below this machine's floor)
                    "x",
                ),
                Measurement("  its peak memory", scored.peak_mb, 3072.0, "MB"),
                Measurement(
                    "  every measure (a best response too) / check perfect --strong",
                    every.wall / checked.wall,
                    7.0,
                    "x",
                ),
                Measurement("  its peak memory", every.peak_mb, 3072.0, "MB"),
                streamed_lookups(db, game, 100_000),  # issue 56: as many as it names
                posted_lookups(db, game, 10_000),
                Measurement("  its peak memory", checked.peak_mb, None, "MB"),
                Measurement(
                    f"serve --game {game}: /api/position p99, 2,000 boards", _position_p99(db, game), 10.0, "ms"
                ),
            ]
    return results


def unlike_floor(info: dict[str, Any], floor_result: dict[str, Any]) -> Measurement:
    """How many of the build's figures (`ttt-db info --json`) differ from the floor's: the positions
    per depth, the classes per depth, the empty board's value and remoteness."""
    depths = info["depths"]
    empty = info["figures"]["empty_board"]
    differing = (
        int([d["positions"] for d in depths] != floor_result["per_depth"])
        + int([d["canonical_positions"] for d in depths] != floor_result["canonical_per_depth"])
        + int(empty != {"value": floor_result["empty_value"], "remoteness": floor_result["remoteness"]})
    )
    return Measurement("  counts per depth and empty-board value unlike the floor's", differing, 0, "")


def in_process_core(game: str, runs: int = 3, *, extras: bool = False) -> tuple[float, float]:
    """The least CPU seconds of building the game's core in a process already started and compiled
    (solve every level, lay it out, compress it and save it in a work folder: what the build does
    beyond starting up and writing the file), and with `extras` the least of counting its extras
    (odds and paths) from the levels."""
    script = f"""
import tempfile, time
from pathlib import Path
from ttt_db.build.levels import WorkFolder, build_core
from ttt_db.game.definition import Game
from ttt_db.store.extras import count_extras
game = Game.parse({game!r})
core = extras = None
for _ in range({runs + 1}):
    with tempfile.TemporaryDirectory() as scratch:
        folder = WorkFolder(Path(scratch) / "work", game)
        started = time.process_time()
        built = build_core(game, folder, lambda *args: None, lambda line: None, keep={extras})
        spent = time.process_time() - started
        core = spent if core is None or spent < core else core
        if {extras}:
            started = time.process_time()
            count_extras(built.tables, built.held)
            spent = time.process_time() - started
            extras = spent if extras is None or spent < extras else extras
print(core, extras or 0.0)
"""
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    core, counted = completed.stdout.split()
    return float(core), float(counted)


HUGE_GAMES = ("5x5k4",)
"""Issue 40: games over 20 cells built on this machine (--huge): 5x5k4 takes about an hour here."""


def huge_commands(game: str, workdir: Path, floor: Path | None, runs: int) -> list[Measurement]:
    """A game of 25 cells on one machine: the floor's SYM=1 run, the build (CPU time, peak memory,
    file), its counts against the floor's, the same build on a 2-worker LocalCluster (the same
    content), a build killed in the middle levels and resumed (the same content), verify, a whole
    best-moves command, and boards sampled from its deepest levels against the reference solver."""
    import os
    import signal

    db = workdir / f"{game}.sqlite"
    where = ["--game", game, "--db", str(db)]
    results: list[Measurement] = []
    floor_cpu = None
    floor_result: dict[str, object] = {}
    if floor is not None:
        used, floor_result = run_floor(floor, game)
        floor_cpu = used.cpu
        results.append(Measurement(f"the C floor's CPU time ({game}, SYM=1, whole run)", floor_cpu, None, "s"))
    epoch = {"SOURCE_DATE_EPOCH": "1700000000"}
    built = usage(command("build", "--quiet", *where), env=epoch)
    info = info_of(where)
    results += [
        Measurement(f"ttt-db build --game {game}, whole command", built.wall, None, "s"),
        Measurement("  its CPU time", built.cpu, None, "s"),
        Measurement("  its peak memory", built.peak_mb / 1024, 12.0, "GB"),
        Measurement("  its file size", db.stat().st_size / 1e9, 5.0, "GB"),
    ]
    if floor_cpu is not None:
        results += [
            Measurement("  build / C floor (CPU)", built.cpu / floor_cpu, 3.0, "x"),
            unlike_floor(info, floor_result),
        ]
    results += _huge_cluster_build(game, workdir, str(info["content_sha256"]), built, epoch)
    resumed = workdir / f"{game}-resumed.sqlite"
    folder = workdir / f".{resumed.name}.levels"
    running = subprocess.Popen(
        command("build", "--quiet", "--game", game, "--db", str(resumed)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, **epoch},
    )
    from ttt_db.game.definition import Game

    middle = f"level-{Game.parse(game).cells * 2 // 3:02d}.json"  # 16 of 5x5k4's 25: its widest levels follow
    while running.poll() is None and not (folder / middle).exists():
        time.sleep(1)
    running.send_signal(signal.SIGKILL)
    running.wait()
    completed = subprocess.run(
        command("build", "--game", game, "--db", str(resumed)),
        capture_output=True,
        text=True,
        env={**os.environ, **epoch},
        check=True,
    )
    same = info_of(["--game", game, "--db", str(resumed)])["content_sha256"] == info["content_sha256"]
    results.append(
        Measurement(
            "  killed in the middle levels, resumed: unlike the whole build",
            float("resuming the build" not in completed.stderr) + float(not same),
            0,
            "",
        )
    )
    resumed.unlink()
    verified = usage(command("verify", *where))
    results.append(Measurement(f"ttt-db verify --game {game}, whole command", verified.wall, None, "s"))
    if floor_cpu is not None:
        results.append(Measurement("  verify / C floor (CPU)", verified.cpu / floor_cpu, 3.0, "x"))
    results += against_reference(
        f"ttt-db best-moves --game {game} BOARD, whole command",
        lambda: command("best-moves", "o..../..x../...../...../.....", *where),
        [sys.executable, "-c", "import typer, sqlite3"],
        "import typer, sqlite3",
        4,
        runs,
    )
    results.append(
        Measurement(
            f"  {game}: deepest levels' sampled boards unlike the reference solver's", _deep_unlike(db, game), 0, ""
        )
    )
    level = EXPORTED_LEVEL.get(game)
    if level is not None:  # issue 56: a level of the largest game exported at the rate of the whole of 4x5k4
        exported = usage(command("export", "--depth", str(level), "--rows", "classes", "-o", os.devnull, *where))
        classes = next(row["canonical_positions"] for row in info["depths"] if row["depth"] == level)
        results.append(
            Measurement(
                f"  export --depth {level} --rows classes as JSON lines per CPU second",
                classes / exported.cpu,
                None,
                "rows/s",
            )
        )
    db.unlink()
    return results


def _huge_cluster_build(game: str, workdir: Path, digest: str, built: Usage, env: dict[str, str]) -> list[Measurement]:
    """Issue 60: the game built again by a LocalCluster of 2 worker processes on this machine: its
    time, its CPU against the in-process build's (`built`), and its content digest against that
    build's (`digest`)."""

    if not _has_dask():
        return []
    db = workdir / f"{game}-cluster.sqlite"
    used = usage(command("build", "--quiet", "--workers", "2", "--game", game, "--db", str(db)), env=env)
    found = info_of(["--game", game, "--db", str(db)])["content_sha256"]
    db.unlink()
    return [
        Measurement(f"ttt-db build --game {game} --workers 2, whole command", used.wall, None, "s"),
        Measurement("  its CPU time / the in-process build's", used.cpu / built.cpu, None, "x"),
        Measurement("  its content digest unlike the in-process build's", float(found != digest), 0, ""),
    ]


def _has_dask() -> bool:
    """Whether Dask's distributed is installed (the cluster builds are skipped, and said so, if not)."""
    import importlib.util

    if importlib.util.find_spec("distributed") is None:
        print("no Dask: the cluster builds are skipped (pip install -e '.[dask]')")
        return False
    return True


EXPORTED_LEVEL: Final = {"5x5k4": 12}
"""Issue 56: the level of a huge game the benchmark exports (5x5k4's widest class count but one)."""


def _deep_unlike(db: Path, game_name: str, sample: int = 60) -> int:
    """How many of `sample` boards reached by random play to 8 or fewer empty cells (the reference
    solver is plain Python) answer differently from tests/reference.py."""
    import random

    import reference

    from ttt_db.game.definition import Game
    from ttt_db.game.rules import empty_cells, mover_at, play, status
    from ttt_db.store.database import open_database

    game = Game.parse(game_name)
    rules = reference.Rules(game.rows, game.columns, game.k)
    solve = reference.solver(rules)
    rng = random.Random(40)
    differing = checked = 0
    with open_database(db, game=game) as database:
        while checked < sample:
            board = game.empty_board
            for ply in range(game.cells - 8):
                if status(board, game) != "playing":
                    break
                board = play(board, rng.choice(empty_cells(board)), mover_at(ply))
            stored, expected = database.lookup(board), solve(board)
            best = reference.best_moves(board, rules) if stored.status == "playing" else ()
            differing += (stored.score, stored.remoteness, stored.best_moves) != (
                expected.score,
                expected.remoteness,
                best,
            )
            checked += 1
    return differing


CLUSTER_PAIRS: Final = 3
"""In-process and cluster builds alternated for the cluster's ratio: a single pair's ratio moves by
a tenth and more from run to run on a shared 2-core machine."""


CLUSTER_START_UP: Final = """
import sys
from ttt_db.build.cluster import _tables, connect

def load(game):
    _tables(game)

if __name__ == "__main__":
    client = connect(2, None)
    client.run(load, sys.argv[1])
    client.close()
    client.cluster.close()
"""
"""What a cluster build costs before its first level: the LocalCluster of `--workers 2` started,
each worker's tables made (numba and its kernels loaded), the cluster closed. (argv: the game)"""


def _cluster_build(game: str, workdir: Path, local: Path, built: Usage) -> list[Measurement]:
    """Issues 26 and 60: the same game built on a LocalCluster of 2 worker processes, against the
    in-process build: the ratio of their CPU times' medians over CLUSTER_PAIRS alternated pairs
    (the first in-process build the run's `built`; a cluster build's CPU the driver's, its nannies'
    and its workers': every process the command started), the same of their wall times, the share
    of the in-process build's CPU that the cluster spends before its first level
    (CLUSTER_START_UP), and its core compared row by row with the in-process build's."""
    import sqlite3

    if not _has_dask():
        return []
    db = workdir / f"{game}-cluster.sqlite"
    again = workdir / f"{game}-again.sqlite"
    local_runs, cluster_runs, start_ups = [built], [], []
    for pair in range(CLUSTER_PAIRS):
        if pair:
            again.unlink(missing_ok=True)
            local_runs.append(usage(command("build", "--quiet", "--game", game, "--db", str(again))))
        db.unlink(missing_ok=True)
        cluster_runs.append(usage(command("build", "--quiet", "--workers", "2", "--game", game, "--db", str(db))))
        start_ups.append(usage([sys.executable, "-c", CLUSTER_START_UP, game]))
    again.unlink(missing_ok=True)

    def median_of(runs: list[Usage], wall: bool) -> float:
        return statistics.median(run.wall if wall else run.cpu for run in runs)

    def core(path: Path) -> list[tuple[object, ...]]:
        with sqlite3.connect(path) as conn:
            return conn.execute(
                "select depth, chunk, slots, codes, checksum from ttt_core order by depth, chunk"
            ).fetchall()

    return [
        Measurement(
            f"ttt-db build --game {game} --workers 2 / in-process build (CPU)",
            median_of(cluster_runs, False) / median_of(local_runs, False),
            1.3,
            "x",
        ),
        Measurement("  the same, wall time", median_of(cluster_runs, True) / median_of(local_runs, True), None, "x"),
        Measurement(
            "  of it, the cluster's start-up alone (CPU)",
            median_of(start_ups, False) / median_of(local_runs, False),
            None,
            "x",
        ),
        Measurement("  its core's rows unlike the in-process build's", float(core(db) != core(local)), 0, ""),
    ]


def _position_p99(db: Path, game_name: str, count: int = 2_000, checking: str | None = None) -> float:
    """p99 milliseconds of /api/position over `count` distinct boards reached by random play, each
    asked once on one keep-alive connection (no answer comes from the server's cache); with
    `checking`, while the server's background check of that AI runs (it is cancelled after)."""
    import random

    from ttt_db.game.definition import Game
    from ttt_db.game.rules import empty_cells, mover_at, play, status

    game = Game.parse(game_name)
    rng = random.Random(25)
    boards: set[str] = set()
    while len(boards) < count:
        board = game.empty_board
        for ply in range(rng.randrange(game.cells)):
            if status(board, game) != "playing":
                break
            board = play(board, rng.choice(empty_cells(board)), mover_at(ply))
        boards.add(board)
    server = subprocess.Popen(
        command("serve", "--port", "0", "--game", game_name, "--db", str(db)), stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        host, port = server.stdout.readline().split(" at ")[1].split()[0].removeprefix("http://").rstrip("/").split(":")
        paths = [f"/api/position?board={board}" for board in sorted(boards)]
        if checking is not None:
            _api(host, int(port), f"/api/check?ai={checking}")
            time.sleep(2.0)  # its process has started and is asking boards
        latencies = asyncio.run(_load_each_once(host, int(port), paths))
        if checking is not None:
            _api(host, int(port), f"/api/check/cancel?ai={checking}", method="POST", codes=(200, 404))
        return statistics.quantiles(latencies, n=100)[98] * 1000
    finally:
        server.terminate()
        server.wait(timeout=10)


def _api(host: str, port: int, path: str, method: str = "GET", codes: tuple[int, ...] = (200,)) -> None:
    import urllib.error
    import urllib.request

    request = urllib.request.Request(f"http://{host}:{port}{path}", method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            status = response.status
    except urllib.error.HTTPError as error:
        status = error.code
    assert status in codes, (path, status)


async def _load_each_once(host: str, port: int, paths: list[str]) -> list[float]:
    reader, writer = await asyncio.open_connection(host, port)
    latencies = []
    for path in paths:
        started = time.perf_counter()
        writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
        head = await reader.readuntil(b"\r\n\r\n")
        length = next(
            int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")
        )
        await reader.readexactly(length)
        latencies.append(time.perf_counter() - started)
    writer.close()
    return latencies


def core_size(db: Path) -> float:
    """Megabytes of the stored core's chunks."""
    import sqlite3

    with sqlite3.connect(db) as conn:
        return float(conn.execute("select sum(length(codes)) from ttt_core").fetchone()[0]) / 1e6


def compile_sources() -> None:
    """The installed package's bytecode written now, as an installation has it: a whole command is
    timed as a user runs it, not with its changed sources compiled again at every start (an
    editable checkout under PYTHONDONTWRITEBYTECODE never writes them)."""
    import compileall
    import importlib.util

    for name in ("ttt_db", "ttt_db.cli", "ttt_db.build"):
        spec = importlib.util.find_spec(name)
        assert spec is not None and spec.submodule_search_locations is not None
        for folder in spec.submodule_search_locations:
            compileall.compile_dir(folder, quiet=1)


CENSUS_HELD: Final = 12
"""The largest games whose census rows the benchmark holds to the reference solver (the suite holds
those up to 10 cells; a 16-cell game's brute force takes minutes and gigabytes in plain Python)."""


def census_rows(workdir: Path) -> list[Measurement]:
    """Issue 60: every census row of 11 to CENSUS_HELD cells taken here and held to the reference
    solver's figures (counts, values, distances, the longest win, o's winning moves)."""
    import reference
    from test_census import census_figures

    from ttt_db.build.census import census_games, take_census
    from ttt_db.game.definition import Game

    games = [game for game in census_games(CENSUS_HELD) if game.cells > 10]
    unlike = 0
    for row in take_census(workdir / "census", games):
        game = Game.parse(row.game)
        unlike += census_figures(row) != reference.census_row(reference.Rules(game.rows, game.columns, game.k))
    return [Measurement(f"census rows of 11-{CENSUS_HELD} cells unlike the reference solver's", unlike, 0, "")]


CENSUS_FLOOR_HELD: Final = 20
"""Issue 60: the recorded census rows above CENSUS_HELD cells and up to this many are held to the C
floor's solve (seconds each here)."""


def census_rows_held_to_floor(floor: Path) -> list[Measurement]:
    """Issue 60: every census row of docs/census.json from CENSUS_HELD + 1 to CENSUS_FLOOR_HELD cells
    held to the C floor's own solve of its game: the empty board's value and plies, the positions and
    classes, and the positions by value for the side to move (a finished board is a loss or a draw
    for the side that would move, so the floor's losses and draws together are the row's losses,
    draws and finished boards)."""
    import json

    from ttt_db.build.census import rows_of_document

    rows = [
        row
        for row in rows_of_document(json.loads((ROOT / "docs" / "census.json").read_text()))[0]
        if CENSUS_HELD < row.cells <= CENSUS_FLOOR_HELD and not row.lacks
    ]
    unlike = 0
    for row in rows:
        solved = run_floor(floor, row.game)[1]
        losses, draws, wins = (sum(counts) for counts in zip(*solved["loss_draw_win_per_depth"], strict=True))  # type: ignore[call-overload]
        unlike += (
            row.value,
            row.remoteness,
            row.positions,
            row.classes,
            row.wins,
            row.losses + row.draws + row.finished,
        ) != (
            solved["empty_value"],
            solved["remoteness"],
            solved["positions"],
            solved["canonical"],
            wins,
            losses + draws,
        )
    return [
        Measurement(
            f"census rows of {CENSUS_HELD + 1}-{CENSUS_FLOOR_HELD} cells held to the C floor", len(rows), None, ""
        ),
        Measurement("  of them unlike the floor's solve", unlike, 0, ""),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="runs per measurement (the median is reported)")
    parser.add_argument(
        "--write-docs",
        action="store_true",
        help=f"write the measurements to {MEASURED.relative_to(ROOT)} and regenerate {PERFORMANCE.relative_to(ROOT)}",
    )
    parser.add_argument(
        "--core-games",
        default=",".join(CORE_GAMES),
        help="games to build and hold to the C floor (tests/floor/mnk_level.c), comma-separated, or 'none' "
        f"(issue 60's census samples: {','.join(CENSUS_SAMPLES)})",
    )
    parser.add_argument(
        "--huge",
        default="none",
        help=f"games over 20 cells to build and hold to the floor here ({', '.join(HUGE_GAMES)}: about an hour), "
        "or 'none'",
    )
    parser.add_argument(
        "--games",
        default=",".join((*LARGE_GAMES, "3x4k3", "4x3k3")),
        help="other m,n,k games to build and measure, comma-separated, or 'none' "
        "(each is built once; the 4x4 games take seconds)",
    )
    parser.add_argument(
        "--keep-unmeasured",
        action="store_true",
        help="with --write-docs: keep every row of the last record that this run did not measure, each with "
        "its own date (a run of some games, say --games none --core-games 4x5k4 --huge 5x5k4, added to a full one)",
    )
    options = parser.parse_args()
    compile_sources()
    games = [] if options.games == "none" else [name.strip() for name in options.games.split(",") if name.strip()]
    with tempfile.TemporaryDirectory() as scratch:
        workdir = Path(scratch)
        db = workdir / "bench.sqlite"
        run_command(command("build", "--quiet", "--db", str(db)))
        measurements = [
            *whole_commands(db, workdir, options.runs),
            *search_commands(db, workdir, options.runs),
            *in_process(db, options.runs),
            *small_end(db, workdir, options.runs),
            *policy_measures(db, options.runs),
            *data_small(db, workdir),
            *serve_commands(db, options.runs),
            *census_rows(workdir),
            Measurement("database file size", db.stat().st_size / 1e6, 2.0, "MB"),
        ]
        floor = compile_floor(workdir)
        if floor is not None:
            measurements += census_rows_held_to_floor(floor)
        for game in games:
            measurements += game_commands(game, workdir, options.runs)
            if game == "4x4k4":
                measurements += first_use(game, workdir)
                measurements.append(Measurement("  its core levels", core_size(workdir / f"{game}.sqlite"), 1.0, "MB"))
                if floor is not None:
                    floor_cpu = min(run_floor(floor, game)[0].cpu for _ in range(3))
                    core, extras = in_process_core(game, extras=True)
                    measurements += [
                        Measurement("  its core in-process / C floor (CPU)", core / floor_cpu, 2.0, "x"),
                        Measurement("  its extras in-process (odds and paths), apart", extras, None, "s"),
                    ]
            (workdir / f"{game}.sqlite").unlink()
        core_games = [] if options.core_games == "none" else options.core_games.split(",")
        for game in core_games:
            measurements += core_commands(game.strip(), workdir, floor)
            (workdir / f"{game.strip()}.sqlite").unlink()
        for game in [] if options.huge == "none" else options.huge.split(","):
            measurements += [replace(m, part=HUGE) for m in huge_commands(game.strip(), workdir, floor, options.runs)]
    _compare_export_rates(measurements)
    print(f"median of {options.runs} runs")
    for measurement in measurements:
        print(measurement.line())
    if options.write_docs:
        write_docs(
            measurements, options.runs, huge_measured=options.huge != "none", keep_unmeasured=options.keep_unmeasured
        )
    return 0 if all(m.ok for m in measurements) else 1


def _compare_export_rates(measurements: list[Measurement]) -> None:
    """Issue 56: a huge game's level exported at least half as many rows per CPU second as the whole
    of 4x5k4 (one class a row, JSON lines): a row appended where both were measured."""
    whole = [m for m in measurements if m.name == "  4x5k4 classes as JSON lines per CPU second"]
    level = [m for m in measurements if m.name.startswith("  export --depth") and m.unit == "rows/s"]
    if whole and level:
        measurements.append(
            replace(
                level[0],
                name="  that level's rows per CPU second / 4x5k4's whole export's",
                value=level[0].value / whole[0].value,
                budget=0.5,
                unit="x",
                higher_is_better=True,
            )
        )


ROOT = Path(__file__).resolve().parents[1]
MEASURED = ROOT / "docs" / "measured.json"
"""The benchmark's last full run: the one source of every measured time and size the docs quote."""
PERFORMANCE = ROOT / "docs" / "performance.md"


def write_docs(measurements: list[Measurement], runs: int, *, huge_measured: bool, keep_unmeasured: bool) -> None:
    """docs/measured.json and docs/performance.md from this run; a run without `--huge` keeps the
    last record's rows of the games over 20 cells (an hour to measure), each with its own date, and
    one that `keep_unmeasured` keeps every row of the last record that it did not measure
    (`merged_rows`)."""
    import json
    import os
    import platform

    today = time.strftime("%Y-%m-%d")
    rows = [
        {
            "name": m.name.strip(),
            "value": m.value,
            "unit": m.unit,
            "budget": m.budget,
            "higher_is_better": m.higher_is_better,
            "ok": m.ok,
            "date": today,
            **({"part": m.part} if m.part is not None else {}),
        }
        for m in measurements
    ]
    if MEASURED.exists() and (keep_unmeasured or not huge_measured):
        earlier = json.loads(MEASURED.read_text())
        dated = [{**row, "date": row.get("date", earlier["date"])} for row in earlier["measurements"]]
        if keep_unmeasured:
            rows = merged_rows(dated, rows, {m.name.strip() for m in measurements if m.name != m.name.lstrip()})
        else:
            rows += [row for row in dated if row.get("part") == HUGE]
    record = {
        "machine": f"{os.cpu_count()} cores, {platform.machine()}, Python {platform.python_version()}",
        "date": today,
        "runs": runs,
        "measurements": rows,
    }
    MEASURED.write_text(json.dumps(record, indent=1) + "\n")
    PERFORMANCE.write_text(render_performance(record))


HUGE: Final = "huge"
"""A measurement's part: the games over 20 cells."""


def merged_rows(earlier: list[dict[str, Any]], measured: list[dict[str, Any]], under: set[str]) -> list[dict[str, Any]]:
    """The last record's rows with this run's in place of those it measured again, a measurement
    and the rows under it (named in `under`: the record keeps no indentation) as one: each in the
    last record's order, new ones after."""

    def grouped(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
        groups: dict[str, list[dict[str, Any]]] = {}
        head = ""
        for row in rows:
            if row["name"] not in under or not groups:
                head = row["name"]
            groups.setdefault(head, []).append(row)
        return groups

    new = grouped(measured)
    kept = {head: new.pop(head, rows) for head, rows in grouped(earlier).items()}
    return [row for rows in (*kept.values(), *new.values()) for row in rows]


def render_performance(record: dict[str, object]) -> str:
    """docs/performance.md from the benchmark's record: every figure as it was measured, its budget
    beside it. tests/test_docs.py holds the file to the record."""
    lines = [
        "# Performance: what the benchmark measured",
        "",
        f"Written by `python tests/benchmark.py --write-docs` on {record['date']} ({record['machine']}; the "
        f"median of {record['runs']} runs where a figure is timed more than once), from `docs/measured.json`.",
        "Budgets are the issues'; a ratio (x) compares with a reference timed in the same run: a bare",
        "Python start-up, a bare one-row read, a list-based check in tests/reference.py, or the C floor",
        "`tests/floor/mnk_level.c` compiled in the run (by CPU time). Every other document quotes no",
        "measured time or size: they change from machine to machine, and this page is rewritten with",
        "each run.",
        "",
        "| measurement | value | budget |",
        "| --- | ---: | --- |",
    ]
    measurements = record["measurements"]
    assert isinstance(measurements, list)
    for m in measurements:
        value = m["value"]
        shown = f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.3g}"
        relation = ">=" if m["higher_is_better"] else "<="
        budget = "" if m["budget"] is None else f"{relation} {m['budget']:,} {m['unit']}"
        verdict = "" if m["ok"] else " MISSED"
        when = "" if m.get("date", record["date"]) == record["date"] else f" (measured {m['date']})"
        lines.append(f"| {m['name']}{when} | {shown} {m['unit']} | {budget}{verdict} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
