"""A user AI that takes long on a board (issue 39): the check says, every so often, which board it
waits at; one that never answers fails at that board by a default limit instead of hanging."""

from __future__ import annotations

from pathlib import Path

import pytest

import ttt_db.ais.limits

SLOW_BOT = """
import time

def play(board):
    if board.count(".") == 7:
        time.sleep(SLEEP)
    return [board.index(".")]
"""


@pytest.fixture
def slow_bot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(ttt_db.ais.limits, "WAITING_NOTICE_SECONDS", 0.5)
    return "slow_bot.py:play"


def test_a_check_says_which_board_it_waits_at(run, slow_bot: str, tmp_path: Path) -> None:
    (tmp_path / "slow_bot.py").write_text(SLOW_BOT.replace("SLEEP", "2.5"))
    result = run("check", slow_bot, "--weak", "--timeout", "30", "-q")
    assert result.exit_code == 1, result.output  # the first free cell is no perfect player
    waited = [line for line in result.stderr.splitlines() if line.startswith("still waiting for slow_bot.py:play")]
    assert waited and waited[0].startswith("still waiting for slow_bot.py:play to answer board ")
    assert waited[0].endswith("(--timeout)") and "s so far; it fails there in " in waited[0]


def test_a_user_ai_that_never_answers_fails_at_that_board_by_default(
    run, slow_bot: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ttt_db.ais.limits, "DEFAULT_USER_ANSWER_SECONDS", 1.0)
    (tmp_path / "slow_bot.py").write_text(SLOW_BOT.replace("SLEEP", "3600"))
    result = run("check", slow_bot, "--weak", "-q")
    assert result.exit_code == 1, result.output
    assert "the AI did not answer within 1 s" in result.stdout


@pytest.mark.parametrize(
    ("import_took", "answer_limit", "advice"),
    [
        (0.4, 60.0, "(its import 0.4 s, then its answer): give each answer longer with --timeout SECONDS"),
        (
            25.0,
            60.0,
            "(its import 25.0 s): if it trains or loads a model, give it longer with --import-timeout SECONDS",
        ),
        (0.4, None, "(its import 0.4 s): if it trains or loads a model, give it longer with --import-timeout"),
    ],
)
def test_a_late_first_answer_names_the_limit_that_ran_out(
    import_took: float, answer_limit: float | None, advice: str
) -> None:
    """The first answer has the import's time and an answer's: a slow bot that trains nothing is
    told of --timeout, one whose import took the time of --import-timeout."""
    from ttt_db.ais.isolation import _late_first_answer, first_answer_seconds

    said = _late_first_answer(30.0, answer_limit, import_took)
    total = first_answer_seconds(30.0, answer_limit)
    assert total == 30.0 + (answer_limit or 0.0)
    assert said.startswith(f"the AI's import and first answer took longer than {total:g} s {advice}")
