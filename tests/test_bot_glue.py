"""What a bot author meets: a bot that trains when imported or on first use, one that hangs, one
that needs to know its game, seeded bots, and the lost games of a match."""

from __future__ import annotations

import json
import time
from pathlib import Path

import reference

from ttt_db.ais.candidates import moves_over_seeds
from ttt_db.ais.registry import load_ai
from ttt_db.game.definition import Game


def _bot(tmp_path: Path, source: str) -> str:
    path = tmp_path / "bot.py"
    path.write_text(source)
    return f"{path}:play"


def test_a_bot_that_trains_when_imported_gets_its_own_limit(run, tmp_path: Path) -> None:
    bot = _bot(
        tmp_path, "import time\ntime.sleep(1.5)  # training\n\ndef play(board):\n    return [board.index('.')]\n"
    )
    refused = run("check", bot, "--strong", "--import-timeout", "0.5")
    assert refused.exit_code == 2
    assert "importing it took longer than 0.5 s" in refused.stderr and "--import-timeout SECONDS" in refused.stderr
    assert run("check", bot, "--strong", "--import-timeout", "20", "--timeout", "1").exit_code == 1  # checked


def test_a_lazily_trained_bot_trains_once_and_a_hanging_one_costs_only_its_boards(run, tmp_path: Path) -> None:
    trained = tmp_path / "trained.txt"
    bot = _bot(
        tmp_path,
        "import time\nmodel = None\n\n"
        "def play(board):\n"
        "    global model\n"
        "    if model is None:\n"
        "        time.sleep(1.0)  # trains on first use, far past --timeout\n"
        f"        open({str(trained)!r}, 'a').write('trained\\n')\n"
        "        model = 'ready'\n"
        "    if board.count('.') == 8:  # one mark on the board: it thinks forever\n"
        "        while True:\n"
        "            pass\n"
        "    return [board.index('.')]\n",
    )
    started = time.monotonic()
    result = run("check", bot, "--strong", "--timeout", "0.2", "--import-timeout", "3", "--json")
    document = json.loads(result.stdout)
    errors = [f for f in document["strong"]["failures"] if "error" in f]
    assert {f["board"].count(".") for f in errors} == {8} and len(errors) == document["strong"]["by_kind"]["error"]
    firsts = [f for f in errors if f["error"].startswith("the AI's import and first answer took longer than 3.2 s")]
    others = [f for f in errors if f["error"] == "the AI did not answer within 0.2 s"]
    assert len(firsts) == 1 and len(others) == len(errors) - 1 > 0  # the first board had the import's time
    assert trained.read_text() == "trained\n"  # one process for the whole command: trained once
    assert time.monotonic() - started < 3 + 0.2 * len(others) + 15


def test_a_bot_that_asks_for_its_game_is_told_it(tmp_path: Path) -> None:
    bot = _bot(tmp_path, "def play(board, game):\n    return [game.rows * 10 + game.columns]\n")
    for name, expected in (("3x4k3", 34), ("4x3k3", 43)):
        game = Game.parse(name)
        assert load_ai(bot, game=game).play("." * 12) == [expected]


def test_the_contained_bot_is_told_its_game_too(run, tmp_path: Path, db_3x4k3_path: Path) -> None:
    seen = tmp_path / "seen.txt"
    bot = _bot(
        tmp_path,
        "def play(board, game):\n"
        f"    open({str(seen)!r}, 'a').write(game.name + '\\n')\n"
        "    return [board.index('.')]\n",
    )
    result = run("check", bot, "--weak", "--game", "3x4k3", "--db", str(db_3x4k3_path))
    assert result.exit_code == 1, result.output
    assert set(seen.read_text().split()) == {"3x4k3"}


def test_moves_over_seeds_can_hand_the_seed_itself() -> None:
    handed: list[object] = []

    def numpy_style(board: str, seed: int) -> int:
        handed.append(seed)
        empty = [i for i, cell in enumerate(board) if cell == "."]
        return empty[seed % len(empty)]

    ai = moves_over_seeds(numpy_style, range(3), generator=int)
    assert ai("ox.......") == [2, 3, 4] and handed == [0, 1, 2]
    assert all(type(seed) is int for seed in handed)


def test_a_match_keeps_the_games_ai1_lost_with_their_moves(run) -> None:
    document = json.loads(run("match", "ai1s", "perfect", "-n", "20", "--seed", "3", "--json").stdout)
    lost = document["lost_games"]
    assert 0 < len(lost["o"]) <= 10 and 0 < len(lost["x"]) <= 10
    rules = reference.TICTACTOE
    for side, games in lost.items():
        assert len({tuple(game["moves"]) for game in games}) == len(games)  # distinct games
        for game in games:
            board = rules.empty
            for move in game["moves"]:
                board = board[:move] + rules.mover(board) + board[move + 1 :]
            other = "x" if side == "o" else "o"
            assert board == game["board"] and rules.winner(board) == other == game["result"]
    text = run("match", "ai1s", "perfect", "-n", "20", "--seed", "3").stdout
    assert "a game ai1s lost as o: " in text
