"""What a new user meets: answers that name their viewpoint, and one clear line for every
mistake (exit 2, `error: ...`, nothing else on stderr)."""

from __future__ import annotations

import builtins
import json
import os
from pathlib import Path

import pytest
import reference

from ttt_db.errors import ImpossibleBoardError, InvalidBoardError, InvalidMoveError
from ttt_db.game.board import Board, parse_move
from ttt_db.game.definition import TICTACTOE


def _one_error_line(result, exit_code: int = 2) -> str:
    assert result.exit_code == exit_code, result.output
    assert result.stdout == ""
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, result.stderr
    assert "Traceback" not in result.stderr
    return result.stderr.removeprefix("error: ").rstrip("\n")


# --- boards and moves --------------------------------------------------------------------


@pytest.mark.parametrize("board", ["---------", "-x-/---/o--", "--x------"])
def test_boards_written_with_dashes_are_boards_not_options(run, board: str) -> None:
    result = run("best-moves", board, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["board"] == board.replace("-", ".").replace("/", "")
    assert run("show", "--json", board).exit_code == 0


def test_dashes_empty_board_text(run) -> None:
    assert run("best-moves", "---------").stdout.splitlines()[-1] == (
        "best moves: 0 (a1), 1 (b1), 2 (c1), 3 (a2), 4 (b2), 5 (c2), 6 (a3), 7 (b3), 8 (c3)"
    )


@pytest.mark.parametrize(
    ("board", "message"),
    [
        (
            "o,x,.,.,.,.,.,.,.",
            "invalid board 'o,x,.,.,.,.,.,.,.': write the cells without separators (did you mean 'ox.......'?)",
        ),
        (
            "ox. .x. ...",
            "invalid board 'ox. .x. ...': a space is an empty cell; separate rows with '/' "
            "(did you mean 'ox./.x./...'?)",
        ),
        (
            "ox.\\.x.\\...",
            "invalid board 'ox.\\.x.\\...': separate rows with '/', not '\\' (did you mean 'ox./.x./...'?)",
        ),
        (
            "b3",
            "invalid board 'b3': that is a move, not a board; a board is 9 cells in reading order, "
            "such as 'ox..x....' or 'ox./.x./...'",
        ),
        (
            "1,2",
            "invalid board '1,2': that is a move, not a board; a board is 9 cells in reading order, "
            "such as 'ox..x....' or 'ox./.x./...'",
        ),
    ],
)
def test_boards_with_the_wrong_separators_say_what_was_meant(run, board: str, message: str) -> None:
    assert _one_error_line(run("best-moves", board)) == message


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("3,0", "x,y is column,row counted from 0 at the top left: x is 0-2, y is 0-2"),
        ("1,3", "x,y is column,row counted from 0 at the top left: x is 0-2, y is 0-2"),
        ("d1", "cell names run from a1 to c3"),
        ("9", "cells are numbered 0 to 8"),
    ],
)
def test_bad_moves_name_the_range(text: str, reason: str) -> None:
    with pytest.raises(InvalidMoveError, match=reason):
        parse_move(text, TICTACTOE)


def test_xy_moves_are_column_then_row_from_zero() -> None:
    assert [parse_move(t, TICTACTOE) for t in ("0,0", "2,0", "0,2", "2,2")] == [0, 2, 6, 8]


# --- who moved first ---------------------------------------------------------------------


def test_first_x_answers_a_board_reachable_only_with_x_first(run) -> None:
    refused = _one_error_line(run("best-moves", "ooo.xx..x"))
    assert refused == (
        "invalid board 'ooo.xx..x': o has three in a row, yet x moved after the game was won; "
        "it is reachable if x moved first; try --first x"
    )
    answered = run("best-moves", "ooo.xx..x", "--first", "x", "--json")
    assert answered.exit_code == 0, answered.output
    document = json.loads(answered.stdout)
    assert (document["status"], document["first"], document["score"]) == ("o", "x", -1)
    assert (document["value"], document["value_viewpoint"]) == ("loss", "x")  # x would move next, o has won
    assert run("best-moves", "ooo.xx..x", "--first", "X").exit_code == 0  # case-insensitive


def test_first_changes_who_is_to_move_on_equal_counts(run, positions) -> None:
    as_o = json.loads(run("best-moves", "ox.......", "--json").stdout)
    as_x = json.loads(run("best-moves", "ox.......", "--json", "--first", "x").stdout)
    assert (as_o["to_move"], as_o["first"]) == ("o", "o")
    assert (as_x["to_move"], as_x["first"]) == ("x", "x")
    stored = positions["xo......."]  # the same game told with o first
    assert (as_x["value"], as_x["best_moves"], as_x["score"]) == (stored.value, list(stored.best_moves), stored.score)
    assert as_o["value"] == positions["ox......."].value
    assert json.loads(run("show", "ox.......", "--json", "--first", "x").stdout)["to_move"] == "x"


def test_first_that_contradicts_the_counts_is_refused(run) -> None:
    assert _one_error_line(run("best-moves", "ox..x....", "--first", "o")) == (
        "invalid board 'ox..x....': x has more marks than o, so x moved first, not o"
    )


def test_board_parse_with_first_round_trips() -> None:
    board = Board.parse("ox.......", first="x")
    assert (board.first, board.to_move, board.stored_cells) == ("x", "x", "xo.......")
    assert Board.parse(str(board), first=board.first) == board
    with pytest.raises(ImpossibleBoardError) as caught:
        Board.parse("ooo.xx..x")
    assert caught.value.reachable_with_first == "x"
    with pytest.raises(TypeError):
        Board.parse(None)  # type: ignore[arg-type]
    with pytest.raises(InvalidBoardError):
        Board("ox.......", "z", TICTACTOE)  # type: ignore[arg-type]


def test_lookup_keeps_the_two_readings_of_one_text_apart(db) -> None:
    assert db.lookup("ox.......").to_move == "o"
    assert db.lookup("ox.......", first="x").to_move == "x"
    assert db.lookup("ox.......").to_move == "o"  # not served from the x-first answer


# --- usage errors and conflicting options --------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["best-moves", "--jsn", "ox..x...."],
            "no such option: --jsn (Possible options: --json) (see 'ttt-db best-moves --help')",
        ),
        (["best-moves"], "missing argument 'BOARD' (see 'ttt-db best-moves --help')"),
        (["frobnicate"], "no such command 'frobnicate' (see 'ttt-db --help')"),
        (["check", "ai14s", "--all"], "give an AI ('ai14s') or --all, not both"),
        (["check"], "give an AI to check (see `ttt-db ais`), or --all for every built-in AI"),
        (["check", "ai14s", "--weak", "--canonical"], "--canonical applies to the strong check, not to --weak"),
        (
            ["check", "ai14s", "--weak", "--shortest", "--canonical"],
            "--canonical and --shortest apply to the strong check, not to --weak",
        ),
        (["play", "--as", "y"], "invalid value for '--as': 'y' is not one of 'o', 'x' (see 'ttt-db play --help')"),
    ],
)
def test_usage_errors_are_one_line(run, args: list[str], message: str) -> None:
    assert _one_error_line(run(*args)) == message


def test_check_all_weak_has_no_strong_column(run, monkeypatch) -> None:
    monkeypatch.setattr("ttt_db.ais.registry.DEFAULT_INSTANCES", ("ai1s", "ai14s"))  # the full table is test_checks'
    assert run("check", "--all", "--weak").stdout.splitlines() == [
        f"{'ai':<20} {'weak as o':>10} {'weak as x':>10}",
        f"{'ai1s':<20} {'LOSES':>10} {'LOSES':>10}",
        f"{'ai14s':<20} {'solved':>10} {'solved':>10}",
    ]
    from ttt_db.ais.registry import load_ai

    ai1s, ai14s = (reference.strong_check_of(load_ai(name).play) for name in ("ai1s", "ai14s"))
    assert run("check", "--all", "--strong").stdout.splitlines() == [
        f"{'ai':<20} {'strong':>12}",
        f"{'ai1s':<20} {ai1s.correct:>6,}/{ai1s.total:,}",
        f"{'ai14s':<20} {ai14s.correct:>6,}/{ai14s.total:,}",
    ]


# --- names -----------------------------------------------------------------------------------


def test_ai_names_are_case_insensitive(run) -> None:
    result = run("check", "AI14S", "--weak")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0] == "ai14s: solved"
    assert run("match", "Perfect", "DLS@3", "-n", "5", "-q").exit_code == 0


def test_a_dotted_user_ai_suggests_the_colon(run) -> None:
    assert _one_error_line(run("check", "my_bots.play")) == (
        "unknown AI 'my_bots.play': a user AI is written package.module:function, with a colon "
        "(did you mean my_bots:play?)"
    )


def test_a_python_file_named_without_its_function_is_told_how_and_offered_its_functions(run, tmp_path: Path) -> None:
    """`check bots/bot.py`: the file's public functions are offered, read from its source (the file
    is not run), not a module path cut at its `.py`."""
    bot = tmp_path / "bot.py"
    bot.write_text("def play(board):\n    return [board.index('.')]\n\ndef _helper():\n    pass\n\nraise SystemExit\n")
    shape = "a user AI in a file is written path/to/file.py:function, the function after a colon"
    assert _one_error_line(run("check", str(bot))) == f"unknown AI {str(bot)!r}: {shape} (did you mean {bot}:play?)"
    missing = tmp_path / "missing.py"
    assert _one_error_line(run("match", str(missing), "perfect")) == (
        f"unknown AI {str(missing)!r}: there is no file {str(missing)!r} to load; {shape}"
    )


@pytest.mark.parametrize(
    ("source", "told"),
    [
        ("def play(board, mark):\n    return [board.index('.')]\n", "'play' takes (board, mark): an AI is called with"),
        ("class play:\n    def __call__(self, board):\n        return [board.index('.')]\n", "'play' is a class"),
    ],
)
def test_an_ai_that_cannot_be_called_with_a_board_is_refused_before_any_check(
    run, tmp_path: Path, source: str, told: str
) -> None:
    """A bot taking the mark too, or a class named instead of an instance, is refused when it is
    loaded (exit 2), not reported NOT solved at the empty board for the TypeError its call raises."""
    bot = tmp_path / "bot.py"
    bot.write_text(source)
    line = _one_error_line(run("check", f"{bot}:play"))
    assert line.startswith(f"AI '{bot}:play' was found but cannot be asked for moves as it is: {told}"), line


def test_version(run) -> None:
    from ttt_db import __version__

    result = run("--version")
    assert (result.exit_code, result.stdout) == (0, f"ttt-db {__version__}\n")


@pytest.mark.parametrize("url", ["sqlite://", "sqlite:///:memory:"])
def test_an_in_memory_database_is_refused(run, url: str) -> None:
    message = _one_error_line(run("best-moves", "ox..x....", "--db", url))
    assert message == (
        f"{url!r} is an in-memory database, which is gone when the command ends; give a file path or a server URL"
    )


# --- paths -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["a?b.sqlite", "c#d.sqlite", "e%20f.sqlite", "g h.sqlite"])
def test_odd_database_paths_build_that_exact_file(run, tmp_path: Path, name: str) -> None:
    target = tmp_path / name
    built = run("build", "-q", "--db", str(target))
    assert built.exit_code == 0, built.output
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]
    answered = run("best-moves", "ox..x....", "--json", "--db", str(target))
    assert answered.stderr == ""  # no "building it now": it found the file it built
    assert json.loads(answered.stdout)["best_moves"] == [7]


def test_build_into_a_read_only_folder_names_the_file(run, tmp_path: Path, monkeypatch) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda path, mode: False if Path(path) == locked else real_access(path, mode))
    target = locked / "db.sqlite"
    assert _one_error_line(run("build", "--db", str(target))) == (
        f"cannot write {target}: permission denied (the folder is read-only)"
    )


def test_an_unreadable_database_is_permission_denied(run, db_path: Path, monkeypatch) -> None:
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda path, mode: False if Path(path) == db_path else real_access(path, mode))
    assert _one_error_line(run("info")) == f"cannot read {db_path}: permission denied"


# --- viewpoints ------------------------------------------------------------------------------


def test_json_labels_every_viewpoint(run) -> None:
    document = json.loads(run("best-moves", "ox..x....", "--json").stdout)
    assert (document["score_viewpoint"], document["value_viewpoint"]) == ("x", "o")
    odds = document["playout_odds"]
    assert [odds["o"], odds["x"], odds["draw"]] == document["playout"]
    assert set(odds) == {"o", "x", "draw"}


def test_text_names_the_viewpoint(run) -> None:
    lines = run("show", "ox..x....").stdout.splitlines()
    assert "score +0, shortest-victory score +0 (from x's side, the first player)" in lines
    assert lines[-1] == "(outcome for o, the player making the move; plies counted from this board, the move included)"
    help_text = run("--help").stdout
    assert "score and sv_score are from the first player's side" in " ".join(help_text.split())


# --- progress bars ---------------------------------------------------------------------------


def test_no_progress_bar_when_stderr_is_not_a_terminal(run, tmp_path: Path) -> None:
    built = run("build", "--db", str(tmp_path / "quiet.sqlite"))  # no --quiet
    assert built.exit_code == 0
    assert built.stderr == ""
    match = run("match", "ai2s", "ai2s", "-n", "2000")
    assert match.exit_code == 0 and match.stderr == ""
    checked = run("check", "ai14s")
    assert checked.stderr == ""


@pytest.mark.parametrize("command", [["build"], ["match", "ai2s", "ai2s"], ["check", "ai14s"]])
def test_every_command_with_a_bar_takes_quiet(run, command: list[str]) -> None:
    assert "-q, --quiet" in run(*command, "--help").stdout


# --- check output ------------------------------------------------------------------------------


def test_strong_failures_show_the_wrong_moves_values(run) -> None:
    lines = run("check", "ai14s", "--strong", "--show", "1").stdout.splitlines()
    start = lines.index("  failures, shallowest first (1 of 52; --show N for more):")
    assert lines[start + 1 : start + 4] == [
        "  (each move: its outcome for the mover, plies counted from this board, the move included)",
        "",
        "  ......o.x: o to move may play 4 (b2), which draws; best: 0 (a1), 2 (c1) or 3 (a2), which win in 5",
    ]


def test_strong_failure_json_adds_values(run) -> None:
    failure = json.loads(run("check", "ai14s", "--strong", "--json").stdout)["strong"]["failures"][0]
    assert failure == {
        "board": "......o.x",
        "to_move": "o",
        "chosen": [4],
        "best": [0, 2, 3],
        "wrong": [4],
        "wrong_move_values": [{"move": 4, "name": "b2", "value": "draw", "remoteness": 6, "outcome": "draws"}],
        "best_move_values": [
            {"move": m, "name": n, "value": "win", "remoteness": 4, "outcome": "wins in 5"}
            for m, n in ((0, "a1"), (2, "c1"), (3, "a2"))
        ],
        "text": "o to move may play 4 (b2), which draws; best: 0 (a1), 2 (c1) or 3 (a2), which win in 5",
    }


def test_failures_come_shallowest_first(db) -> None:
    from ttt_db.ais.registry import load_ai
    from ttt_db.checks.report import run_checks

    failures = run_checks(load_ai("ai1s"), db, weak=False).strong.failures  # type: ignore[union-attr]
    depths = [9 - f.board.count(".") for f in failures]
    assert depths == sorted(depths) and depths[0] == 1


def test_a_raising_user_ai_is_reported_at_its_own_line(run, tmp_path: Path, monkeypatch) -> None:
    source = tmp_path / "crashing_bot.py"
    source.write_text("def play(board):\n    if board.count('.') < 8:\n        return [1 // 0]\n    return [4]\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    result = run("check", "crashing_bot:play", "--weak")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[1] == "weak, as o:  NOT solved (3 boards examined)"
    assert lines[2] == "  the AI misbehaved after 4 (b2), 0 (a1):"
    assert lines[3] == f"  the AI raised ZeroDivisionError: integer division or modulo by zero (at {source}:3)"
    document = json.loads(run("check", "crashing_bot:play", "--weak", "--json").stdout)
    assert document["weak"]["o"]["counterexample"]["where"] == f"{source}:3"


def test_counts_read_as_words(run, tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "one_board_bot.py").write_text("def play(board):\n    return [9]\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    lines = run("check", "one_board_bot:play", "--weak").stdout.splitlines()
    assert lines[1] == "weak, as o:  NOT solved (1 board examined)"
    assert lines[2] == "  the AI misbehaved at the empty board:"


# --- play -------------------------------------------------------------------------------------


def _play(run, moves: list[str], *options: str):
    result = run("play", *options, input="\n".join(moves) + "\n")
    assert "Traceback" not in result.output
    return result


def test_play_names_the_first_mistake_and_offers_a_rematch(run) -> None:
    out = _play(run, ["a1", "b1", "c2", "n"], "--ai", "perfect", "--seed", "1").stdout
    assert out.splitlines()[-5:] == [
        "result: x wins: perfect beat you",
        "moves: 0 (a1), 4 (b2), 1 (b1), 2 (c1), 5 (c2), 6 (a3)",
        "your first mistake, move 5: o could still get a draw; it played 5 (c2), which",
        "  loses in 2; 6 (a3) would have kept a draw or better",
        "play again? [y/N] n",
    ]


def test_play_rematch_starts_a_new_game(run) -> None:
    out = _play(run, ["b2", "2", "0,2", "y", "quit"], "--ai", "ai1s").stdout
    assert out.count("result: o wins: you beat ai1s") == 1
    assert "play again? [y/N] y" in out
    assert out.rstrip().endswith("you quit\nmoves: none")


def test_play_lines_fit_80_columns(run) -> None:
    out = _play(run, ["a1", "hint", "b1", "c2", "n"], "--ai", "perfect", "--seed", "1").stdout
    assert max(len(line) for line in out.splitlines()) <= 80


def test_ctrl_c_in_play_exits_130_without_a_traceback(run, monkeypatch) -> None:
    def interrupted(prompt: str = "") -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr(builtins, "input", interrupted)
    result = run("play")
    assert result.exit_code == 130
    assert result.stderr == "\n"


def test_undo_turn_takes_back_to_the_players_turn() -> None:
    from ttt_db.play.playthrough import Playthrough

    game = Playthrough(TICTACTOE)
    for move in (4, 0, 8):
        game.push(move)
    assert game.undo_turn("x") == 2 and game.moves == [4]
    assert game.undo_turn("o") == 1 and game.moves == []
    with pytest.raises(InvalidMoveError):
        game.undo_turn("o")


def test_play_side_is_case_insensitive(run) -> None:
    out = _play(run, ["quit"], "--as", "X", "--ai", "ai1s").stdout
    assert out.startswith("you play x against ai1s\n")
    assert "ai1s (o) plays 0 (a1)" in out


def test_a_draw_that_could_have_been_a_win_names_the_mistake(run) -> None:
    # against ai1s (the first empty cell) these moves end in a draw although o could have won
    out = _play(run, ["1", "3", "4", "6", "8", "n"], "--ai", "ai1s").stdout
    assert out.splitlines()[-4:-1] == [
        "moves: 1 (b1), 0 (a1), 3 (a2), 2 (c1), 4 (b2), 5 (c2), 6 (a3), 7 (b3), 8 (c3)",
        "your first mistake, move 7: o could still get the win; it played 6 (a3), which",
        "  loses in 2; 7 (b3) would have kept the win",
    ]
    assert "result: draw" in out  # ai1s did not punish it, but the win was gone


# --- what users met, round two (issue 39) ----------------------------------------------------


@pytest.mark.parametrize(
    ("board", "hint"),
    [
        ("o...............", "give --game 4x4k4"),
        ("o.../..../..../....", "give --game 4x4k4"),
        ("o" + "." * 11, "3x4k3"),
    ],
)
def test_a_board_of_another_games_size_names_the_game(run, board: str, hint: str) -> None:
    message = _one_error_line(run("best-moves", board))
    assert message.endswith(f"is another game: {hint}" if hint.startswith("give") else f"give --game {hint}")


def test_a_board_a_cell_off_is_a_typo_not_another_game(run) -> None:
    assert "another game" not in _one_error_line(run("best-moves", "o........x"))


def test_a_builtin_ai_that_does_not_play_the_game_says_so_before_any_build(run, tmp_path: Path) -> None:
    missing = tmp_path / "4x4k4.sqlite"
    for command in (["check", "ai14s"], ["play", "--ai", "ai14s"]):
        message = _one_error_line(run(*command, "--game", "4x4k4", "--db", str(missing)))
        assert message.startswith("AI 'ai14s' does not play 4x4k4: it is a rule set for 3x3k3 (tic-tac-toe)")
    assert not missing.exists()


@pytest.mark.parametrize(
    ("source", "said"),
    [
        ("def play(board):\n    return [board.index('.')\n", "raised SyntaxError: '[' was never closed"),
        (
            "import does_not_exist_pkg\n\ndef play(board):\n    return [0]\n",
            "raised ModuleNotFoundError: No module named",
        ),
    ],
)
def test_a_user_ai_that_fails_to_load_is_not_called_unknown(
    run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str, said: str
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "round_two_bot.py").write_text(source)
    for spec in ("round_two_bot.py:play", "round_two_bot:play"):
        message = _one_error_line(run("check", spec, "--weak"))
        assert message.startswith(f"AI '{spec}' failed to load: importing 'round_two_bot") and said in message


def test_a_move_typed_at_play_again_is_answered_not_taken_as_no(run) -> None:
    out = _play(run, ["a1", "b1", "c2", "a3", "y", "quit"], "--ai", "perfect", "--seed", "1").stdout
    assert "play again? [y/N] a3\nthe game is over: answer y to play again, or n to stop (not 'a3')" in out
    assert out.count("you play o against perfect") == 1 and out.rstrip().endswith("you quit\nmoves: none")


def test_a_bad_move_names_the_commands_the_intro_names(run) -> None:
    out = _play(run, ["banana", "quit"], "--ai", "ai1s").stdout
    assert "or a command: hint, undo, quit" in out.splitlines()[2]
    assert "; try again (or a command: hint, undo, quit, help)" in out


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc, a folder that takes no files")
def test_a_database_in_a_folder_that_takes_no_files_names_the_database(run) -> None:
    result = run("info", "--db", "/proc/ttt-db-round-two.sqlite")
    assert result.exit_code == 2 and result.stdout == ""
    assert (
        result.stderr.splitlines()[-1] == "error: cannot write /proc/ttt-db-round-two.sqlite: no such file or directory"
    )


# --- what users met, round three (issue 59) --------------------------------------------------


def test_a_file_answers_for_its_own_game_without_game_repeated(run, db_3x4k3_path: Path, tmp_path: Path) -> None:
    """Issue 59, item 6: `--db` names a file that knows its game; `--game` need not say it again."""
    board = "o.x./..../...."
    answered = run("best-moves", "--db", str(db_3x4k3_path), board)
    assert answered.exit_code == 0, answered.stderr
    assert answered.stdout == run("best-moves", "--game", "3x4k3", "--db", str(db_3x4k3_path), board).stdout
    published = run("publish", "--db", str(db_3x4k3_path), str(tmp_path / "mirror"))
    assert published.exit_code == 0, published.stderr
    assert published.stdout.startswith("published 3x4k3 as ")
    assert "3x4k3" in run("info", "--db", str(db_3x4k3_path)).stdout
    refused = run("best-moves", "--game", "3x3k3", "--db", str(db_3x4k3_path), "o........")
    assert refused.exit_code == 2 and "solves 3x4k3, not 3x3k3" in refused.stderr  # a --game given still rules


def test_the_readmes_sql_line_is_said_to_answer_classes(db_path: Path) -> None:
    """Issue 59, item 8: the README's sqlite3 line reads `ttt_positions`, a row per class; the README
    says so, with the counts that line gives and the positions they stand for."""
    import re
    import sqlite3

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    query = re.search(r'sqlite3 data/ttt-db.sqlite "(select board from ttt_positions [^"]+)"', readme)
    assert query is not None
    with sqlite3.connect(db_path) as conn:
        boards = [board for (board,) in conn.execute(query.group(1))]
        orbits = conn.execute(query.group(1).replace("select board", "select sum(orbit)", 1)).fetchone()[0]
    said = re.search(r"gives (\d+) canonical boards, which stand for `sum\(orbit\)` = (\d+) positions", readme)
    assert said is not None and (int(said.group(1)), int(said.group(2))) == (len(boards), orbits)
    assert "`ttt_positions` | (up to 12 cells" in readme and "`ttt_node_lists` |" in readme


def test_the_readmes_x_first_board_is_found_in_the_export_with_its_marks_swapped(run) -> None:
    """Issue 59, item 10: the README's lead board has x first; exports hold o-first boards only, and
    the README says where it is there: the swapped board, with the same value for the side to move."""
    import re

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    said = re.search(r"found with its marks swapped \(`([^`]+)` as `([^`]+)`\)", readme)
    assert said is not None
    board, swapped = said.groups()
    assert swapped == board.translate(str.maketrans("ox", "xo"))
    asked = json.loads(run("best-moves", board, "--json").stdout)
    assert asked["first"] == "x"
    records = [json.loads(line) for line in run("export", "--depth", str(9 - board.count("."))).stdout.splitlines()]
    found = [record for record in records if record["board"] == swapped]
    assert len(found) == 1 and found[0]["first"] == "o"
    assert (found[0]["value"], found[0]["remoteness"]) == (asked["value"], asked["remoteness"])
    assert found[0]["best_moves"] == asked["best_moves"]
