"""Plug-ins by path (`check bots/my_bot.py:play`), errors that say where a module was looked for,
and the helpers that let a bot that chooses at random report every move it may play."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
import reference

from ttt_db.ais.candidates import moves_over_seeds, top_moves
from ttt_db.ais.registry import load_ai
from ttt_db.game.definition import TICTACTOE
from ttt_db.store import published
from ttt_db.store.database import SolutionDatabase


def _bots(tmp_path: Path) -> Path:
    folder = tmp_path / "bots"
    folder.mkdir()
    (folder / "rules.py").write_text("def first_free(board):\n    return [board.index('.')]\n")
    (folder / "my_bot.py").write_text(
        "from rules import first_free  # a helper beside it\n\ndef play(board):\n    return first_free(board)\n"
    )
    return folder


def test_a_bot_by_path_is_checked_like_one_by_module(run, tmp_path: Path, monkeypatch) -> None:
    _bots(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    by_path = run("check", "../bots/my_bot.py:play", "--strong", "--json")
    builtin = run("check", "ai1s", "--strong", "--json")
    assert by_path.exit_code == builtin.exit_code == 1
    assert by_path.stdout.replace("../bots/my_bot.py:play", "ai1s") == builtin.stdout
    for command in (["match", "../bots/my_bot.py:play", "ai2s", "-n", "5"], ["ais"]):
        assert run(*command).exit_code == 0


def test_a_missing_module_says_where_it_was_looked_for(run, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = run("check", "no_such_bot:play")
    assert result.exit_code == 2 and result.stdout == ""
    assert f"looked for among the installed packages and in the current folder {tmp_path}" in result.stderr
    assert "give a file's path instead, as in bots/my_bot.py:play" in result.stderr
    missing = run("check", "bots/nothing.py:play")
    assert missing.stderr == (
        f"error: unknown AI 'bots/nothing.py:play': no file 'bots/nothing.py' (looked for {tmp_path}/bots/nothing.py)\n"
    )


def _line_score(board: str, move: int) -> float:
    """How many lines through the move are still open to the mover: ties are common."""
    me = reference.TICTACTOE.mover(board)
    return sum(1 for line in reference.TICTACTOE.lines if move in line and all(board[c] in (".", me) for c in line))


def tie_breaking_bot(board: str) -> int:
    """What a bot author writes: the best-scored move, ties broken at random."""
    scored = [(m, _line_score(board, m)) for m, _ in reference.TICTACTOE.children(board)]
    best = max(s for _, s in scored)
    return random.choice([m for m, s in scored if s == best])


def test_top_moves_reports_every_move_a_tie_breaking_bot_may_play(db: SolutionDatabase) -> None:
    ai = top_moves(_line_score)
    for board in db.node_list("decision")[:300]:
        seen = {tie_breaking_bot(board) for _ in range(60)}
        assert seen <= set(ai(board)), board  # every move the bot played is reported
    assert len(ai(".........")) == 1 and ai(".........") == [4]  # the centre lies on 4 lines
    assert sorted(ai("....o....")) == [0, 2, 6, 8]  # the corners tie
    result = reference.check_strong(ai, db.node_list("decision"), db.best_moves_table())
    assert result.total == published.LIST_SIZES["decision"] and result.correct < result.total


def test_moves_over_seeds_gathers_what_a_sampling_bot_plays(db: SolutionDatabase) -> None:
    def epsilon_greedy(board: str, rng: random.Random) -> int:
        moves = [m for m, _ in reference.TICTACTOE.children(board)]
        return rng.choice(moves) if rng.random() < 0.2 else moves[0]

    ai = moves_over_seeds(epsilon_greedy, range(64))
    answer = ai("....o....")
    assert answer[0] == 0 and set(answer) <= {0, 1, 2, 3, 5, 6, 7, 8} and len(answer) > 1
    assert ai("....o....") == answer  # the same seeds give the same answer: a check is repeatable
    assert load_ai("ai2s").play("....o....") == tuple(m for m in range(9) if m != 4)


def test_match_has_a_timeout_for_a_sleeping_ai(run, tmp_path: Path) -> None:
    bot = tmp_path / "sleepy.py"
    bot.write_text("import time\n\ndef play(board):\n    time.sleep(60)\n    return [board.index('.')]\n")
    result = run("match", f"{bot}:play", "ai2s", "-n", "2", "--timeout", "0.2", "--import-timeout", "3")
    assert (result.exit_code, result.stdout) == (2, "")
    assert re.fullmatch(  # a slow answer, not a slow import: --timeout is the advice
        r"error: an AI misbehaved at '\.{9}': the AI's import and first answer took longer than 3\.2 s "
        r"\(its import \d+\.\d s, then its answer\): give each answer longer with --timeout SECONDS, "
        r"or the first with --import-timeout SECONDS if it trains on first use\n",
        result.stderr,
    ), result.stderr


def test_play_has_a_timeout_for_a_sleeping_ai(run, tmp_path: Path) -> None:
    bot = tmp_path / "sleepy.py"
    bot.write_text("import time\n\ndef play(board):\n    time.sleep(60)\n    return [board.index('.')]\n")
    result = run(
        "play", "--ai", f"{bot}:play", "--as", "x", "--timeout", "0.2", "--import-timeout", "3", input="quit\n"
    )
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {bot}:play misbehaved at '.........': the AI's import and first answer")


def test_a_contained_ai_failing_mid_check_fails_at_that_board_only(db: SolutionDatabase, tmp_path: Path) -> None:
    """Boards are sent ahead of their answers: an AI that hangs at one board and kills its own
    process at another fails at exactly those two, and every other board gets the answer it gets
    in process."""
    from ttt_db.ais.isolation import contained_ai
    from ttt_db.ais.limits import Limits
    from ttt_db.ais.registry import load_ai
    from ttt_db.checks.report import run_checks

    decision = db.node_list("decision")
    hangs, dies = decision[1500], decision[2500]
    bot = tmp_path / "flaky.py"
    bot.write_text(
        "import os\n\n"
        "def play(board):\n"
        f"    if board == {hangs!r}:\n"
        "        while True:\n"
        "            try:\n"
        "                pass\n"
        "            except BaseException:\n"
        "                pass\n"
        f"    if board == {dies!r}:\n"
        "        os._exit(1)\n"
        "    return [board.index('.')]\n"
    )
    in_process = run_checks(load_ai("ai1s"), db, weak=False).strong
    with contained_ai(f"{bot}:play", TICTACTOE, limits=Limits(seconds=0.5)) as named:
        contained = run_checks(named, db, weak=False).strong
    assert in_process is not None and contained is not None
    reasons = {failure.board: (failure.chosen, failure.error) for failure in contained.failures}
    assert reasons.pop(hangs) == ((), "the AI did not answer within 0.5 s")
    assert reasons.pop(dies) == ((), "the AI's process exited with code 1")
    expected = {failure.board: (failure.chosen, failure.error) for failure in in_process.failures}
    expected.pop(hangs, None)
    expected.pop(dies, None)
    assert reasons == expected


def test_what_a_contained_ai_raises_reaches_the_check_in_any_text(tmp_path: Path) -> None:
    """The worker's replies are written by orjson, which refuses a lone surrogate: an AI whose
    error says one (a name decoded with surrogateescape, say) fails at its board with its words,
    like one whose error is in any other language, and the next board gets its answer."""
    from ttt_db.ais.calling import candidate_moves
    from ttt_db.ais.isolation import contained_ai
    from ttt_db.ais.limits import Limits
    from ttt_db.errors import AIMisbehaved

    bot = tmp_path / "wordy.py"
    bot.write_text(
        "def play(board):\n"
        "    if board.startswith('o'):\n"
        "        raise ValueError('no file named \\udcff.txt')\n"
        "    if board.startswith('x'):\n"
        "        raise ValueError('pas de coup trouvé')\n"
        "    return [board.index('.')]\n"
    )
    with contained_ai(f"{bot}:play", TICTACTOE, limits=Limits(seconds=5)) as named:
        with pytest.raises(AIMisbehaved) as surrogate:
            candidate_moves(named.play, "o........")
        with pytest.raises(AIMisbehaved) as accented:
            candidate_moves(named.play, "x........")
        assert candidate_moves(named.play, ".........") == (0,)
    assert "no file named \udcff.txt" in surrogate.value.reason
    assert "pas de coup trouvé" in accented.value.reason
