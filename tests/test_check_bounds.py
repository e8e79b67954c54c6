"""The strong check's exact counts by kind and depth, its bounded failures, and every way a
check ends early (--max-boards, --max-seconds, a cancel) with an honest partial answer."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from functools import cache
from pathlib import Path

import pytest
import reference

from ttt_db.ais.protocol import NamedAI
from ttt_db.ais.registry import load_ai
from ttt_db.checks.budget import CheckBudget
from ttt_db.checks.report import run_checks
from ttt_db.checks.strong import TOLD_EVERY
from ttt_db.checks.weak import WEAK_STRIDE, check_weak
from ttt_db.game.definition import Game
from ttt_db.store.database import SolutionDatabase, open_database

RULES_3X4K3 = reference.Rules(3, 4, 3)


@cache
def _decision_boards(rules: reference.Rules) -> list[str]:
    solve = reference.solver(rules)
    found = []
    for board in reference.reachable(rules):
        children = rules.children(board)
        if not children:
            continue
        sign = 1 if rules.mover(board) == "o" else -1
        if len({sign * solve(child).score for _, child in children}) > 1:
            found.append(board)
    return found


def _move_key(board: str, child: str, rules: reference.Rules) -> tuple[int, int]:
    """A move's worth to the mover, larger is better: its value, then a win sooner, a loss later."""
    solved = reference.solver(rules)(child)
    value = (1 if rules.mover(board) == "o" else -1) * solved.score
    plies = solved.remoteness + 1
    return value, -plies if value > 0 else plies if value < 0 else 0


def _expected_failures(ai, rules: reference.Rules, *, shortest: bool) -> Counter[tuple[int, str]]:
    """(depth, kind) of every failing decision position, by the definitions of docs/checks.md."""
    names = {1: "win", 0: "draw", -1: "loss"}
    found: Counter[tuple[int, str]] = Counter()
    for board in _decision_boards(rules):
        keys = {move: _move_key(board, child, rules) for move, child in rules.children(board)}
        best = max(keys.values())
        allowed = {m for m, key in keys.items() if (key == best if shortest else key[0] == best[0])}
        wrong = [keys[m] for m in ai(board) if m not in allowed]
        if not wrong:
            continue
        worst = min(wrong)
        if worst[0] < best[0]:
            kind = f"{names[best[0]]}_to_{names[worst[0]]}"
        else:
            kind = "slower_win" if best[0] > 0 else "faster_loss"
        found[rules.cells - board.count("."), kind] += 1
    return found


def _counted(result) -> Counter[tuple[int, str]]:
    return Counter({(depth, kind): n for depth, kinds in result.by_depth.items() for kind, n in kinds.items()})


@pytest.fixture(scope="module")
def db_3x4k3(db_3x4k3_path: Path):
    with open_database(db_3x4k3_path, game=Game.parse("3x4k3")) as database:
        yield database


@pytest.mark.parametrize(("name", "shortest"), [("ai1s", False), ("ai2s", False), ("perfect", True)])
def test_failures_are_counted_by_depth_and_kind(db_3x4k3: SolutionDatabase, name: str, shortest: bool) -> None:
    ai = load_ai(name, lambda: db_3x4k3, db_3x4k3.game)
    expected = _expected_failures(ai.play, RULES_3X4K3, shortest=shortest)
    result = run_checks(ai, db_3x4k3, weak=False, shortest=shortest).strong
    assert result is not None and result.complete
    assert _counted(result) == expected
    assert result.failing == sum(expected.values()) > 0
    assert result.correct == len(_decision_boards(RULES_3X4K3)) - result.failing


def test_failures_kept_are_bounded_and_shallowest_while_counts_stay_exact(db_3x4k3: SolutionDatabase) -> None:
    ai = load_ai("ai1s", lambda: db_3x4k3, db_3x4k3.game)
    full = run_checks(ai, db_3x4k3, weak=False).strong
    kept = run_checks(ai, db_3x4k3, weak=False, budget=CheckBudget(failures_kept=7)).strong
    assert full is not None and kept is not None
    assert (kept.failing, kept.by_depth) == (full.failing, full.by_depth)
    assert len(kept.failures) == 7 < kept.failing
    deepest_kept = max(failure.depth for failure in kept.failures)
    shallower = {f.board for f in full.failures if f.depth < deepest_kept}
    assert shallower <= {f.board for f in kept.failures} <= {f.board for f in full.failures}
    document = run_checks(ai, db_3x4k3, weak=False, budget=CheckBudget(failures_kept=7)).to_document()
    assert document["strong"]["failing"] == full.failing and len(document["strong"]["failures"]) == 7


def test_max_boards_ends_with_what_was_checked(db_3x4k3: SolutionDatabase) -> None:
    decision = _decision_boards(RULES_3X4K3)
    depths = Counter(RULES_3X4K3.cells - board.count(".") for board in decision)
    limit = sum(depths[d] for d in range(6)) + 5  # every level below 6, and 5 boards of level 6
    ai = load_ai("ai1s", lambda: db_3x4k3, db_3x4k3.game)
    result = run_checks(ai, db_3x4k3, weak=False, budget=CheckBudget(max_boards=limit)).strong
    assert result is not None and not result.complete
    assert (result.stopped, result.checked, result.depth_reached, result.total) == (
        "max_boards",
        limit,
        6,
        len(decision),
    )
    expected = _expected_failures(ai.play, RULES_3X4K3, shortest=False)
    below = sum(n for (depth, _), n in expected.items() if depth < 6)
    assert below <= result.failing <= below + 5
    assert result.solved is False  # a failure found is proof enough

    perfect = load_ai("perfect", lambda: db_3x4k3, db_3x4k3.game)
    report = run_checks(perfect, db_3x4k3, budget=CheckBudget(max_boards=50))
    assert report.solved is None and report.strong is not None and report.strong.solved is None


def test_a_slow_ai_stops_at_the_deadline_and_a_cancel_stops_at_once(db: SolutionDatabase) -> None:
    def slow(board: str) -> list[int]:
        time.sleep(0.005)
        return [board.index(".")]

    named = NamedAI("slow", slow, False, "sleeps")
    started = time.monotonic()
    result = run_checks(named, db, weak=False, budget=CheckBudget(seconds=0.3)).strong
    assert result is not None and result.stopped == "deadline" and 0 < result.checked < result.total
    assert time.monotonic() - started < 5

    cancel = threading.Event()

    def progress(done: int, total: int) -> None:
        if done:
            cancel.set()

    report = run_checks(named, db, budget=CheckBudget(cancelled=cancel), progress=progress)
    assert report.strong is not None and report.strong.stopped == "cancelled"
    assert report.strong.checked < report.strong.total


def test_a_fast_ais_cancel_is_read_within_a_batch_once_told_every_has_passed(db: SolutionDatabase) -> None:
    """A fast AI's check reads its budget every TOLD_EVERY, not before every answer: cancelled
    at its 100th answer, its 101st taking TOLD_EVERY, it is asked no further (a busy machine may
    read the cancel before the 101st); a batch left to run on would ask hundreds more."""
    cancel = threading.Event()
    asked = 0

    def quick(board: str) -> list[int]:
        nonlocal asked
        asked += 1
        if asked == 100:
            cancel.set()
        elif asked == 101:
            time.sleep(TOLD_EVERY)
        return [board.index(".")]

    named = NamedAI("quick", quick, False, "answers at once")
    result = run_checks(named, db, weak=False, budget=CheckBudget(cancelled=cancel)).strong
    assert result is not None and result.stopped == "cancelled"
    assert result.checked == asked and asked in (100, 101)


def test_a_bot_that_times_out_on_every_board_is_held_to_the_deadline_within_a_batch(run, tmp_path: Path) -> None:
    """Issue 59: each board costs the bot its whole --timeout, so --max-seconds holds within about one
    timeout: the check asks at most a board per timeout in the time it had (and a loaded machine asks
    fewer), not a first batch of 64 boards as it did."""
    bot = tmp_path / "stuck_bot.py"
    bot.write_text("def play(board):\n    while True:\n        pass\n")
    timeout, seconds = 0.3, 1.5
    options = ["--timeout", str(timeout), "--max-seconds", str(seconds), "--import-timeout", "1"]  # import: not here
    result = run("check", f"{bot}:play", "--strong", "--json", *options)
    assert result.exit_code == 1, result.output  # every board asked is a failure (an error)
    strong = json.loads(result.stdout)["strong"]
    assert strong["stopped"] == "deadline"
    assert 1 <= strong["checked"] <= seconds / timeout + 2  # a timeout a board at least: fewer when loaded
    assert strong["checked"] == strong["failing"]
    assert strong["reached_in_part"] is True


def test_a_slow_bot_is_told_how_long_its_check_takes_from_its_first_answers(db: SolutionDatabase) -> None:
    """Issue 59: the estimate came after the first batch of 64 boards (an hour for a bot at its 60 s
    timeout); it now comes once the bot's answers have taken a second, while it is still asked."""

    def slow(board: str) -> list[int]:
        time.sleep(0.2)
        return [board.index(".")]

    asked_so_far = [0]
    said: list[tuple[int, str]] = []

    def progress(done: int, total: int) -> None:
        asked_so_far[0] = done

    named = NamedAI("slow", slow, False, "sleeps")
    result = run_checks(
        named,
        db,
        weak=False,
        budget=CheckBudget(seconds=3.0),
        progress=progress,
        notice=lambda line: said.append((asked_so_far[0], line)),
    ).strong
    assert result is not None and result.stopped == "deadline"
    assert len(said) == 1
    ((asked_then, line),) = said
    assert line.startswith(f"asking slow at {result.total:,} decision positions of 3x3k3: about ")
    assert 0 < asked_then < result.checked < 64  # said inside the first batch, and boards asked after it


def test_the_weak_search_spends_the_budget_board_by_board_shared_by_the_sides(db: SolutionDatabase) -> None:
    """o gets half of --max-boards and --max-seconds, x what o leaves (x got nothing once)."""
    perfect = load_ai("perfect", lambda: db)
    budget = CheckBudget(max_boards=400)
    bounded = check_weak(perfect.play, db.game, "draw", budget=budget)
    assert bounded.solved is None and bounded.o.stopped == bounded.x.stopped == "max_boards"
    assert 200 <= bounded.o.visited <= 200 + WEAK_STRIDE
    assert 400 - bounded.o.visited <= bounded.x.visited <= 400 - bounded.o.visited + WEAK_STRIDE
    assert budget.spent == bounded.o.visited + bounded.x.visited
    assert check_weak(perfect.play, db.game, "draw").solved is True

    def slow(board: str) -> list[int]:
        time.sleep(0.002)
        return list(perfect.play(board))

    timed = check_weak(slow, db.game, "draw", budget=CheckBudget(seconds=0.5))
    assert timed.o.stopped == timed.x.stopped == "deadline" and timed.o.visited > 0 and timed.x.visited > 0


def test_check_command_says_what_a_bounded_check_proved(run) -> None:
    result = run("check", "perfect", "--max-boards", "10", "--show", "0")
    assert result.exit_code == 4, result.output
    assert "perfect: not decided" in result.stdout and "stopped by --max-boards" in result.stdout
    document = json.loads(run("check", "ai1s", "--strong", "--max-boards", "500", "--json").stdout)
    strong = document["strong"]
    assert (strong["complete"], strong["stopped"], strong["checked"]) == (False, "max_boards", 500)
    assert document["solved"] is False and strong["failing"] == sum(strong["by_kind"].values())
    assert sum(sum(kinds.values()) for kinds in strong["by_depth"].values()) == strong["failing"]


def test_progress_is_written_as_lines_when_stderr_is_a_file(run, monkeypatch: pytest.MonkeyPatch) -> None:
    from ttt_db.cli.progress import LineBar

    monkeypatch.setattr(LineBar, "LINE_SECONDS", 0.0)
    result = run("check", "ai2s", "--strong")
    lines = [line for line in result.stderr.splitlines() if line.startswith("strong check: decision positions asked")]
    assert lines and "431/431 boards (100.0%)" in lines[-1] and "left" in lines[-1]
