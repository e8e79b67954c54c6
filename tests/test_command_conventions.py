"""One convention everywhere: plies counted the same way in every text, shares that add up,
singulars where there is one, and a search refused or bounded before it runs away."""

from __future__ import annotations

from pathlib import Path

from ttt_db.cli.render import shares
from ttt_db.store import published


def test_show_counts_plies_as_hint_and_check_do(run) -> None:
    shown = run("show", "x.o.o....").stdout  # o threatens c1-a3: x blocks at a3 or loses next ply
    assert "   6  a3    draws" in shown and "   1  b1    loses in 2" in shown  # the move included
    checked = run(
        "check", "ai1s", "--strong", "--show", str(published.LIST_SIZES["decision"])
    ).stdout  # ai1s plays b1 there and loses
    assert "x.o.o....: x to move may play 1 (b1), which loses in 2;" in checked
    assert "remoteness" not in shown


def test_shares_add_up_to_a_hundred() -> None:
    assert shares([1, 1, 1]) == ["33.4%", "33.3%", "33.3%"]
    assert shares([2, 1, 0]) == ["66.7%", "33.3%", "0.0%"]
    for counts in ([564, 290, 146], [7, 7, 7], [1, 998, 1], [0, 0, 0]):
        total = sum(float(share.rstrip("%")) for share in shares(counts))
        assert round(total, 1) == (100.0 if sum(counts) else 0.0), counts


def test_a_match_line_adds_up(run) -> None:
    lines = run("match", "ai2s", "ai2s", "-n", "7", "--seed", "1").stdout.splitlines()
    for line in lines[2:5]:
        assert round(sum(float(word.rstrip("%")) for word in line.split() if word.endswith("%")), 1) == 100.0


def test_a_one_row_game_says_row_not_rows(run) -> None:
    result = run("best-moves", "o./..", "--game", "1x4k2")
    assert result.exit_code == 2
    assert "must be 1 row of 4 cells for 1x4k2" in result.stderr


def test_search_all_with_an_algorithm_says_what_to_do(run) -> None:
    result = run("search", "alphabeta", "--all")
    assert result.exit_code == 2
    assert result.stderr == (
        "error: --all runs every algorithm: give it a board, or 'alphabeta' without --all (`ttt-db search alphabeta`)\n"
    )


def test_a_search_past_its_limit_has_no_answer(run) -> None:
    result = run("search", "minimax", "--max-nodes", "1000")
    assert result.exit_code == 4 and result.stdout == ""
    assert result.stderr == "error: the search passed --max-nodes 1,000 without an answer\n"


def test_a_search_that_may_run_for_hours_says_so_first(run, db_3x4k3_path: Path) -> None:
    result = run("search", "alphabeta", "--game", "3x4k3", "--db", str(db_3x4k3_path))
    assert result.exit_code == 0
    assert result.stderr.startswith("a search from a board with 12 empty cells may examine up to 1,302,061,345 nodes")
    bounded = run("search", "alphabeta", "--game", "3x4k3", "--db", str(db_3x4k3_path), "--max-seconds", "60")
    assert bounded.stderr == ""


def test_iddfs_rows_say_why_they_change(run) -> None:
    text = run("search", "--compare", "alphabeta", "iddfs@0.01").stdout
    assert text.rstrip().endswith("change from run to run")
