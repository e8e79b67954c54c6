"""Matches between AIs and a person's game against one."""

from __future__ import annotations

import json
import math
import random

import pytest
import reference

from ttt_db.ais.registry import ai2s, load_ai
from ttt_db.errors import AIMisbehaved
from ttt_db.game.definition import TICTACTOE
from ttt_db.play.match import play_game, run_match
from ttt_db.play.playthrough import Playthrough
from ttt_db.store.database import SolutionDatabase

ODDS = {"o": 737 / 1260, "x": 363 / 1260, "draw": 160 / 1260}


def test_perfect_never_loses_to_random_play(db: SolutionDatabase) -> None:
    perfect = load_ai("perfect", lambda: db).play
    result = run_match(perfect, ai2s, 2000, seed=11, game=TICTACTOE)
    assert result.as_o.loss == 0 and result.as_x.loss == 0
    assert result.as_o.games == result.as_x.games == 2000
    assert result.as_o.win > 1800  # o wins nearly always against a random x


def test_random_play_matches_the_exact_odds() -> None:
    games = 20_000
    result = run_match(ai2s, ai2s, games, seed=2024, game=TICTACTOE)
    # as o, AI1's wins are o wins; as x, AI1's losses are o wins
    observed = {
        "o": (result.as_o.win + result.as_x.loss) / (2 * games),
        "x": (result.as_o.loss + result.as_x.win) / (2 * games),
        "draw": result.total.draw / (2 * games),
    }
    for outcome, p in ODDS.items():
        standard_error = math.sqrt(p * (1 - p) / (2 * games))
        assert abs(observed[outcome] - p) < 4 * standard_error, (outcome, observed[outcome], p)


def test_the_same_seed_gives_the_same_match() -> None:
    ai14s = load_ai("ai14s").play
    first = run_match(ai14s, ai2s, 500, seed=5, game=TICTACTOE)
    second = run_match(ai14s, ai2s, 500, seed=5, game=TICTACTOE)
    assert (first.as_o, first.as_x) == (second.as_o, second.as_x)
    third = run_match(ai14s, ai2s, 500, seed=6, game=TICTACTOE)
    assert (third.as_o, third.as_x) != (first.as_o, first.as_x)


def test_a_misbehaving_ai_stops_the_match_with_its_board() -> None:
    with pytest.raises(AIMisbehaved, match=r"at '\.\.\.\.\.\.\.\.\.': the AI answered no move"):
        run_match(lambda board: [], ai2s, 10, seed=1, game=TICTACTOE)


def test_play_game_records_the_moves() -> None:
    record = play_game(load_ai("ai1s").play, load_ai("ai1s").play, random.Random(0), TICTACTOE)
    assert record.moves == (0, 1, 2, 3, 4, 5, 6)
    assert (record.board, record.result) == ("oxoxoxo..", "o")


def test_game_push_and_undo() -> None:
    game = Playthrough(TICTACTOE)
    game.push(4)
    game.push(0)
    assert str(game.board) == "x...o...."
    game.undo(2)
    assert str(game.board) == "........." and game.moves == []


def test_match_command(run) -> None:
    result = run("match", "perfect", "ai2s", "-n", "300", "--seed", "3", "--json", "--quiet")
    assert result.exit_code == 0
    document = json.loads(result.stdout)
    assert set(document) == {"games", "as_o", "as_x", "total", "seconds", "lost_games"}
    assert document["games"] == 300
    assert document["total"]["loss"] == 0
    assert sum(document["total"].values()) == 600
    again = json.loads(run("match", "perfect", "ai2s", "-n", "300", "--seed", "3", "--json", "-q").stdout)
    assert again["as_o"] == document["as_o"] and again["as_x"] == document["as_x"]
    text = run("match", "ai14s", "ai2s", "-n", "100", "--seed", "1", "-q").stdout.splitlines()
    assert text[0] == "ai14s vs ai2s: 100 games with ai14s as o and 100 as x (seed 1)"
    assert text[2].startswith("as o") and text[4].startswith("total")
    assert run("match", "ai14s", "bogus").exit_code == 2


def _transcript(run, moves: list[str], *options: str) -> str:
    result = run("play", *options, input="\n".join(moves) + "\n")
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    return result.stdout


def test_play_handles_bad_input_and_undo(run) -> None:
    out = _transcript(run, ["b2", "b2", "9", "banana", "hint", "undo", "undo", "a1", "quit"], "--ai", "ai1s")
    assert "ai1s (x) plays 0 (a1)" in out
    assert "cell 4 is taken by o; try again" in out
    assert "cells are numbered 0 to 8; try again" in out
    assert "expected a cell index 0-8, a name like b3, or x,y (column,row from 0); try again" in out
    assert "hint: you draw with best play\nbest: " in out
    assert "took back your last move and the reply" in out
    assert "nothing to undo: no move of yours is on the board" in out
    assert out.rstrip().endswith("moves: 0 (a1), 1 (b1)")


def test_play_a_whole_game_to_the_end(run) -> None:
    # ai1s (x) answers each move with the first empty cell; o wins on the c1-a3 diagonal
    out = _transcript(run, ["b2", "2", "0,2"], "--ai", "ai1s")
    assert "result: o wins: you beat ai1s" in out
    assert out.rstrip().endswith("moves: 4 (b2), 0 (a1), 2 (c1), 1 (b1), 6 (a3)\nplay again? [y/N]")


def test_play_as_x_against_perfect_shortest(run, db: SolutionDatabase) -> None:
    out = _transcript(run, ["b1", "a2", "c2"], "--ai", "perfect-shortest", "--as", "x", "--seed", "1")
    assert "result: o wins: perfect-shortest beat you" in out
    moves_line = next(line for line in out.splitlines() if line.startswith("moves: "))
    moves = [int(m.split()[0]) for m in moves_line.removeprefix("moves: ").split(", ")]
    board = "........."
    for ply, move in enumerate(moves):
        if ply % 2 == 0:  # every move of the AI wins as fast as the position allows
            assert move in db.lookup(board).best_moves_shortest
        board = board[:move] + "ox"[ply % 2] + board[move + 1 :]
    assert moves == [2, 1, 8, 3, 5]  # x leaves c2 open: o takes it at once, the earliest win there is


def test_play_ends_cleanly_when_input_runs_out(run) -> None:
    out = _transcript(run, ["b2"], "--ai", "ai1s")
    assert "input ended: game abandoned" in out
    assert out.rstrip().endswith("moves: 4 (b2), 0 (a1)")


def test_play_with_an_unknown_ai_says_one_line_and_nothing_on_stdout(run) -> None:
    result = run("play", "--ai", "nobody", input="b2\n")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: unknown AI 'nobody'")


def test_a_hint_in_a_lost_position_says_you_lose(run) -> None:
    # ai1s (o) takes a1; x answers a2, o takes b1 and threatens c1 and b2 at once: x has lost
    out = _transcript(run, ["a2", "hint", "quit"], "--ai", "ai1s", "--as", "x")
    assert "hint: you lose with best play" in out and "you loss" not in out
    # issue 59: every move loses, and the hint leads with the one that holds out longest
    rules, board = reference.TICTACTOE, "oo.x....."
    solve = reference.solver(rules)
    after = {cell: solve(child).remoteness for cell, child in rules.children(board)}
    slowest = [cell for cell in sorted(after) if after[cell] == max(after.values())]
    assert len(slowest) < len(after)  # some moves lose sooner: "best" is not every move
    names = ", ".join(f"{cell} ({'abc'[cell % 3]}{cell // 3 + 1})" for cell in slowest)
    assert f"best: {names}, the slowest loss\n" in out
