"""The command line: exact output, JSON documents, and exit codes."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import reference

from ttt_db.cli.app import app
from ttt_db.store import published
from ttt_db.store.database import open_database


def _commands() -> list[str]:
    import typer.main

    return sorted(typer.main.get_command(app).commands)  # type: ignore[attr-defined]


COMMANDS = _commands()  # from the app itself: a new command is held to the tests below at once
DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_every_command_is_documented_in_cli_md_and_the_readme() -> None:
    reference = (DOCS / "cli.md").read_text()
    readme = (DOCS.parent / "README.md").read_text()
    assert len(COMMANDS) >= 14
    for command in COMMANDS:
        assert f"| `ttt-db {command}" in reference, command
        assert f"ttt-db {command}" in readme, command


def test_best_moves_reference_example(run) -> None:
    result = run("best-moves", "ox..x....")
    assert result.exit_code == 0
    assert result.stdout == (
        "    a   b   c\n"
        "1   o | x | .\n"
        "   ---+---+---\n"
        "2   . | x | .\n"
        "   ---+---+---\n"
        "3   . | . | .\n"
        "\n"
        "o to move: a draw with best play (the board fills in 6 plies)\n"
        "x moved first (it has one more mark than o)\n"
        "score +0, shortest-victory score +0 (from x's side, the first player)\n"
        "best moves: 7 (b3)\n"
    )


def test_best_moves_json(run) -> None:
    result = run("best-moves", "ox..x....", "--json")
    assert result.exit_code == 0
    document = json.loads(result.stdout)
    assert {k: document[k] for k in ("board", "to_move", "status", "value", "best_moves", "first", "score")} == {
        "board": "ox..x....",
        "to_move": "o",
        "status": "playing",
        "value": "draw",
        "best_moves": [7],
        "first": "x",
        "score": 0,
    }
    assert document["moves"][0] == {  # a loss for o, who moves second here: +1 for x, the first player
        "move": 2,
        "name": "c1",
        "value": "loss",
        "remoteness": 1,
        "outcome": "loses in 2",
        "board": "oxo.x....",
        "score": 1,
    }
    assert {m["move"]: m["value"] for m in document["moves"]}[7] == "draw"
    assert set(document) >= {"remoteness", "sv_score", "best_moves_shortest", "playout", "paths", "canonical"}


def test_best_moves_shortest_wins_fastest(run) -> None:
    # o wins at once on c1 (completing the diagonal c1-b2-a3); three others win more slowly
    plain = json.loads(run("best-moves", "....o.oxx", "--json").stdout)
    assert plain["value"] == "win"
    assert plain["best_moves"] == [0, 2, 3, 5]
    assert plain["best_moves_shortest"] == [2]
    assert run("best-moves", "....o.oxx", "--shortest").stdout.splitlines()[-1] == "best moves (shortest): 2 (c1)"


def test_a_position_one_ply_from_its_end_says_ply(run, db) -> None:
    board = "oo.xx...."  # o completes the top row at once
    solved = reference.solver()(board)
    assert (solved.score, solved.remoteness) == (1, 1)
    assert "o to move: o wins in 1 ply with best play\n" in run("show", board).stdout
    assert db.lookup(board).outcome == "o wins in 1 ply with best play"


def test_a_finished_board_is_answered_not_refused(run) -> None:
    result = run("best-moves", "ooo.xx...")
    assert result.exit_code == 0
    assert "game over: o has won (no move)" in result.stdout
    assert "best moves" not in result.stdout
    assert json.loads(run("best-moves", "oxooxxxoo", "--json").stdout)["status"] == "draw"


@pytest.mark.parametrize(
    ("board", "rule"),
    [
        ("ox", "expected 9 cells, got 2"),
        ("ox..x...q", "unexpected character 'q'"),
        ("oooo.x...", "o has 4 marks and x has 1"),
        ("oooxxx...", "both o and x have three in a row"),
        ("ooo.xx..x", "o has three in a row, yet x moved after the game was won"),
        ("ooo...ooo", "winning lines that share no cell"),
    ],
)
@pytest.mark.parametrize("command", ["best-moves", "show"])
def test_bad_boards_exit_2_with_one_line(run, board: str, rule: str, command: str) -> None:
    result = run(command, board)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith(f"error: invalid board {board!r}: ")
    assert rule in result.stderr
    assert "Traceback" not in result.stderr


def test_show_lists_every_move_best_first(run) -> None:
    lines = run("show", "ox..x....").stdout.splitlines()
    table = lines[lines.index("move  name  outcome       best") + 1 :]
    assert table[0] == "   7  b3    draws         * shortest"
    assert table[1] == "   2  c1    loses in 2"  # as hint, check and the page count: the move included
    assert [line.split()[0] for line in table[:6]] == ["7", "2", "3", "5", "6", "8"]


USAGE = {
    "build": "ttt-db build [OPTIONS]",
    "census": "ttt-db census [OPTIONS]",
    "best-moves": "ttt-db best-moves [OPTIONS] {BOARD}",
    "show": "ttt-db show [OPTIONS] {BOARD}",
    "line": "ttt-db line [OPTIONS] {BOARD}",
    "stats": "ttt-db stats [OPTIONS]",
    "info": "ttt-db info [OPTIONS]",
    "verify": "ttt-db verify [OPTIONS]",
    "publish": "ttt-db publish [OPTIONS] {DIR}",
    "export": "ttt-db export [OPTIONS]",
    "ais": "ttt-db ais [OPTIONS]",
    "check": "ttt-db check [OPTIONS] [AI]",
    "score": "ttt-db score [OPTIONS] {AI}",
    "suite": "ttt-db suite [OPTIONS]",
    "judge": "ttt-db judge [OPTIONS] {FILE}",
    "match": "ttt-db match [OPTIONS] {AI1} {AI2}",
    "play": "ttt-db play [OPTIONS]",
    "search": "ttt-db search [OPTIONS] [ALGO... [BOARD]]",
    "check-trace": "ttt-db check-trace [OPTIONS] {FILE}",
    "serve": "ttt-db serve [OPTIONS]",
}


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help(run, command: str) -> None:
    import typer.main

    result = run(command, "--help")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0] == f"Usage: {USAGE[command]}"
    params = typer.main.get_command(app).commands[command].params  # type: ignore[attr-defined]
    for param in params:
        for name in (*param.opts, *param.secondary_opts):
            if name.startswith("-"):
                assert name in result.stdout, name
        if param.param_type_name == "option" or command == "ais":
            continue
        assert param.help and " ".join(param.help.split()[:3]) in " ".join(result.stdout.split())


@pytest.mark.parametrize("command", COMMANDS)
def test_the_console_script_makes_only_the_command_it_runs_and_answers_alike(command: str) -> None:
    """`main` gives Typer the one command named (making every command's options costs a whole
    command tens of milliseconds): its help is the whole app's, word for word."""
    import typer.main
    from typer.testing import CliRunner

    from ttt_db.cli.app import app_for

    narrowed = app_for([command, "--help"])
    assert sorted(typer.main.get_command(narrowed).commands) == [command]  # type: ignore[attr-defined]
    runner = CliRunner()
    assert runner.invoke(narrowed, [command, "--help"]).stdout == runner.invoke(app, [command, "--help"]).stdout


def test_a_line_naming_no_command_gets_the_whole_app() -> None:
    from ttt_db.cli.app import app_for

    assert app_for([]) is app and app_for(["--help"]) is app and app_for(["chek"]) is app
    shown = subprocess.run([sys.executable, "-m", "ttt_db.cli", "chek"], capture_output=True, text=True)
    assert shown.returncode == 2 and "Did you mean 'check'?" in shown.stderr


def test_info(run, db_path: Path) -> None:
    result = run("info")
    assert result.exit_code == 0
    assert result.stdout.startswith(f"database:       {db_path} (")
    assert "tree nodes:          549,946" in result.stdout
    document = json.loads(run("info", "--json").stdout)
    assert document["figures"]["positions"] == published.LIST_SIZES["all"]
    assert [d["tree_nodes"] for d in document["depths"]][-1] == 127872


def test_verify_ok_and_tampered(run, db_path: Path, tmp_path: Path) -> None:
    from forging import forge_code

    from ttt_db.game.definition import TICTACTOE
    from ttt_db.ranked.codes import code_of

    ok = run("verify")
    assert ok.exit_code == 0 and ok.stdout.startswith("ok: ")
    tampered = tmp_path / "tampered.sqlite"
    tampered.write_bytes(db_path.read_bytes())
    depth, slot = forge_code(tampered, ".......o.", code_of("win", 7), TICTACTOE)  # a draw in 8
    bad = run("verify", "--db", str(tampered))
    assert bad.exit_code == 1
    found = bad.stdout.splitlines()[0]
    assert found.startswith("damaged row: ") and found.endswith(
        f": core code win in 7, its children give draw in 8 (level {depth} slot {slot})"
    )


def test_export_to_file_and_stdout(run, tmp_path: Path) -> None:
    target = tmp_path / "positions.csv"
    result = run("export", "--format", "csv", "-o", str(target))
    assert result.exit_code == 0
    assert result.stdout == ""
    assert f"wrote {published.LIST_SIZES['all']:,} positions" in result.stderr
    assert len(target.read_text().splitlines()) == published.LIST_SIZES["all"] + 1  # and the header
    lines = run("export").stdout.splitlines()
    assert len(lines) == published.LIST_SIZES["all"]
    assert json.loads(lines[0])["board"] == "........."


def test_build_and_first_use_notice(run, tmp_path: Path) -> None:
    target = tmp_path / "cli.sqlite"
    built = run("build", "--quiet", "--db", str(target))
    assert built.exit_code == 0
    assert built.stdout.startswith(f"built {target} in ")
    assert "decision positions:  3,191 (431 up to symmetry)" in built.stdout
    assert built.stderr == ""
    with open_database(target) as database:
        digest = database.content_digest()
    assert run("build", "--db", str(target)).stdout == (
        f"database already at {target}; use --force to rebuild it\n  content digest {digest}\n"
    )
    fresh = tmp_path / "fresh.sqlite"
    answered = run("best-moves", "ox..x....", "--json", env={"TTT_DB": str(fresh)})
    assert answered.exit_code == 0
    assert f"no database at {fresh}: building it now (first use)" in answered.stderr
    assert json.loads(answered.stdout)["best_moves"] == [7]


def test_build_json_is_the_build_as_a_document(run, tmp_path: Path) -> None:
    """`build --json` prints one document (its help says so), not the summary's text."""
    target = tmp_path / "json.sqlite"
    built = run("build", "--quiet", "--json", "--game", "3x4k3", "--db", str(target))
    assert built.exit_code == 0
    document = json.loads(built.stdout)
    with open_database(target) as database:
        info = database.info_document()
        digest = database.content_digest()
    assert document["built"] is True and document["location"] == str(target)
    assert document["digest"] == digest == info["content_sha256"]
    assert document["figures"] == info["figures"]
    assert [depth["positions"] for depth in document["depths"]] == [depth["positions"] for depth in info["depths"]]
    again = json.loads(run("build", "--json", "--game", "3x4k3", "--db", str(target)).stdout)
    assert (again["built"], again["seconds"], again["digest"]) == (False, None, digest)


def test_a_broken_database_is_an_error_not_a_traceback(run, tmp_path: Path) -> None:
    foreign = tmp_path / "foreign.sqlite"
    sqlite3.connect(foreign).execute("create table t (x)").connection.commit()
    result = run("info", "--db", str(foreign))
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ") and "not a ttt-db database" in result.stderr


def test_app_name() -> None:
    assert app.info.name == "ttt-db"


@pytest.mark.parametrize(
    ("db", "message"),
    [
        ("{tmp}", "is a directory; give the database file's path"),
        ("nosuchdialect://x", "cannot use 'nosuchdialect://x'"),
    ],
)
def test_unusable_database_locations_are_errors(run, tmp_path: Path, db: str, message: str) -> None:
    result = run("best-moves", "ox..x....", "--db", db.format(tmp=tmp_path))
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ") and message in result.stderr
    assert "Traceback" not in result.output


def test_export_and_db_into_a_missing_folder_behave_alike(run, tmp_path: Path) -> None:
    exported = run("export", "-o", str(tmp_path / "missing" / "out.jsonl"))
    assert exported.exit_code == 0
    assert len((tmp_path / "missing" / "out.jsonl").read_text().splitlines()) == published.LIST_SIZES["all"]
    built = run("best-moves", "ox..x....", "--db", str(tmp_path / "also-missing" / "db.sqlite"))
    assert built.exit_code == 0
    assert (tmp_path / "also-missing" / "db.sqlite").is_file()


def test_the_documented_options_are_the_apps() -> None:
    """docs/cli.md: every command but census takes --game, every one but ais and census --db, the
    query commands --json."""
    import typer.main

    commands = typer.main.get_command(app).commands  # type: ignore[attr-defined]
    options = {name: {opt for p in command.params for opt in p.opts} for name, command in commands.items()}
    assert {name for name, given in options.items() if "--game" not in given} == {"census"}
    assert {name for name, given in options.items() if "--db" not in given} == {"ais", "census"}
    queries = {
        "build",
        "census",
        "best-moves",
        "show",
        "line",
        "stats",
        "info",
        "verify",
        "ais",
        "check",
        "score",
        "suite",
        "judge",
        "match",
        "search",
        "check-trace",
    }
    assert {name for name, given in options.items() if "--json" in given} == queries
    assert ", ".join(sorted(queries)) == ", ".join(sorted(q.strip() for q in _documented_json_commands()))


def _documented_json_commands() -> list[str]:
    text = (DOCS / "cli.md").read_text()
    listed = text.split("nothing else there; see [json.md](json.md)): ", 1)[1].split(".", 1)[0]
    return listed.replace("\n", " ").replace(" and ", ", ").replace(" (its plan)", "").split(",")


def test_help_has_no_bare_type_placeholders(run) -> None:
    for command in COMMANDS:
        shown = run(command, "--help").stdout
        assert "<str>" not in shown and "<int" not in shown and "<float" not in shown, command


def test_the_top_level_help_speaks_of_every_game(run) -> None:
    shown = " ".join(run("--help").stdout.split())
    assert "Boards are 9 cells" not in shown
    assert "Boards are the game's cells in reading order (9 on tic-tac-toe" in shown


def test_an_error_quotes_a_board_as_typed(run) -> None:
    result = run("best-moves", "ox.\\x..\\...")
    assert result.stderr.startswith("error: invalid board 'ox.\\x..\\...': separate rows with '/'")


def test_check_all_honours_canonical(run) -> None:
    table = run("check", "--all", "--strong", "--canonical").stdout
    assert "/431" in table and "/3,191" not in table
    # issue 59: iddfs@0.01 can lose under load; the table says why a row may change, as search --all does
    from ttt_db.ais.registry import playable_ais
    from ttt_db.game.definition import TICTACTOE

    timed = [named.name for named in playable_ais(TICTACTOE, lambda: None) if not named.deterministic]
    assert timed and table.splitlines()[-1].startswith(f"{timed[0]} answers by the clock:")


def test_a_board_of_the_wrong_size_is_refused_before_any_build(run, tmp_path: Path) -> None:
    missing = tmp_path / "4x4k3.sqlite"
    for command in ("best-moves", "show"):
        result = run(command, "ox..x....", "--game", "4x4k3", "--db", str(missing))
        assert (result.exit_code, result.stdout) == (2, "")
        assert "building" not in result.stderr and "16 cells" in result.stderr, result.stderr
    assert not missing.exists()


def test_build_refuses_a_database_of_another_game_instead_of_calling_it_built(run, db_path: Path) -> None:
    result = run("build", "--game", "3x4k3", "--db", str(db_path))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"error: {db_path} holds the 3x3k3 database, not 3x4k3's: give --force to replace it, or another --db\n"
    )


def test_an_unreachable_server_is_said_so_without_setting_out_to_build(run) -> None:
    import socket

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"postgresql+psycopg://ttt@127.0.0.1:{port}/ttt"
    result = run("best-moves", "ox..x....", "--db", url)
    assert (result.exit_code, result.stdout) == (2, "")
    assert "building" not in result.stderr
    assert result.stderr.startswith(f"error: cannot reach {url}: ") or "driver" in result.stderr, result.stderr
