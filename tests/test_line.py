"""The solution as data (issue 36): the whole line from a board to the end, and many boards
answered at once, each held to tests/reference.py's solver."""

from __future__ import annotations

import json

import pytest
import reference

from ttt_db.game.board import Board
from ttt_db.play.line import perfect_line
from ttt_db.store.database import SolutionDatabase

RULES = reference.TICTACTOE


@pytest.mark.parametrize("shortest", [False, True])
@pytest.mark.parametrize("board", [".........", "ox..x....", "o...x....", "oo..x.x..", "xo.......", "ox.xo...."])
def test_the_line_is_perfect_play_to_the_end(db: SolutionDatabase, board: str, shortest: bool) -> None:
    start = Board.parse(board)
    line = perfect_line(db, start, shortest=shortest)
    solve = reference.solver(RULES)
    stored = start.stored_cells  # the reference's boards have o first
    for ply in line.plies[:-1]:
        here = Board.parse(ply.position.cells, start.first).stored_cells
        assert ply.ties == reference.best_moves(here, shortest=shortest), here
        assert ply.move == min(ply.ties)
        assert solve(here).score == solve(stored).score  # the value is kept all the way
    assert line.end.status != "playing" and len(line.moves) == len(line.plies) - 1
    if shortest:  # the fastest win or the slowest loss: exactly the start's remoteness
        assert len(line.moves) == solve(stored).remoteness


def test_line_prints_every_ply_and_json(run) -> None:
    text = run("line", "ox..x....", "--shortest")
    assert text.exit_code == 0, text.output
    rows = [row.split() for row in text.stdout.splitlines() if row[:4].strip().isdigit() and "|" not in row]
    assert [row[4] for row in rows] == ["b3", "a2", "c2", "c1", "a3", "c3"]
    assert [int(row[3]) for row in rows] == [6, 5, 4, 3, 2, 1]
    document = json.loads(run("line", "ox..x....", "--json").stdout)
    assert document["first"] == "x" and document["end"]["status"] == "draw"
    assert document["moves"] == [ply["move"] for ply in document["plies"][:-1]]
    assert document["plies"][0] | {"ties": None} == {
        "ply": 3, "board": "ox..x....", "to_move": "o", "status": "playing", "value": "draw",
        "remoteness": 6, "ties": None, "move": 7, "name": "b3",
    }  # fmt: skip


def test_many_boards_are_answered_in_order_a_bad_one_with_its_error(run, db: SolutionDatabase) -> None:
    lines = ["ox..x....", "bad", '{"board": "x........", "first": "x"}', "", '{"board": 3}', "ooo.xx...", '["no"]']
    result = run("best-moves", "-", input="\n".join(lines) + "\n")
    assert result.exit_code == 0, result.output
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(answers) == 6  # the empty line is skipped
    assert answers[0] == db.lookup("ox..x....").to_document()
    assert answers[1]["input"] == "bad" and "expected 9 cells, got 3" in answers[1]["error"]
    assert answers[2] == db.lookup("x........", first="x").to_document()
    assert answers[3]["input"] == '{"board": 3}' and "a record is" in answers[3]["error"]
    assert answers[4]["status"] == "o" and answers[4]["best_moves"] == []
    assert answers[5]["input"] == '["no"]' and "expected 9 cells, got 6" in answers[5]["error"]  # read as a board
    shown = run("show", "-", input="....o....\n").stdout  # one line of compact JSON, the document unchanged
    assert shown == json.dumps(db.lookup("....o....").to_document(), separators=(",", ":")) + "\n"


def test_lookup_many_answers_each_board_or_its_error(db: SolutionDatabase) -> None:
    from ttt_db.errors import InvalidBoardError

    found = list(db.lookup_many(["ox..x....", "ooooo....", "....o...."]))
    assert found[0] == db.lookup("ox..x....") and found[2] == db.lookup("....o....")
    assert isinstance(found[1], InvalidBoardError)


def test_the_api_line_is_the_librarys(db: SolutionDatabase) -> None:
    from starlette.testclient import TestClient

    from ttt_db.web.app import create_app

    with TestClient(create_app(db)) as client:
        answer = client.get("/api/line", params={"board": "ox..x....", "shortest": "1"})
    assert answer.status_code == 200
    assert answer.json() == perfect_line(db, Board.parse("ox..x...."), shortest=True).to_document()


def test_the_uci_endgame_data_set_is_reproduced_row_for_row(run) -> None:
    """Aha's 1991 file: every finished board with x first, x's wins ("positive") first, then o's
    wins and the draws ("negative"), each group in x < o < b order; its first and last rows as the
    UCI repository has them."""
    result = run("export", "--format", "uci-endgame")
    assert result.exit_code == 0, result.output
    rows = result.stdout.splitlines()
    order = {"x": 0, "o": 1, "b": 2}
    groups: dict[int, list[list[str]]] = {0: [], 1: [], 2: []}
    for board in reference.reachable():
        if not RULES.finished(board):
            continue
        x_first = ["b" if cell == "." else {"o": "x", "x": "o"}[cell] for cell in board]
        won = RULES.winner(board)
        groups[0 if won == "o" else 1 if won == "x" else 2].append(x_first)
    expected = [
        ",".join(cells) + ("," + ("positive" if group == 0 else "negative"))
        for group, boards in groups.items()
        for cells in sorted(boards, key=lambda cells: [order[cell] for cell in cells])
    ]
    assert rows == expected and len(rows) == 958
    assert rows[0] == "x,x,x,x,o,o,x,o,o,positive" and rows[-1] == "o,o,x,x,x,o,o,x,x,negative"
    refused = run("export", "--format", "uci-endgame", "--game", "3x4k3")
    assert refused.exit_code == 2 and "tic-tac-toe's (3x3k3)" in refused.stderr


def test_a_batch_over_http_is_the_librarys_documents_in_order(db: SolutionDatabase) -> None:
    from starlette.testclient import TestClient

    from ttt_db.web.app import create_app

    boards = ["ox..x....", "bad", {"board": "x........", "first": "x"}, {"board": 3}, "ooo.xx..."]
    too_long = b"[" + b'"o........",' * 100_000 + b'"o........"]'
    with TestClient(create_app(db)) as client:
        answer = client.post("/api/positions", json=boards)
        again = client.post("/api/positions", json={"boards": ["x........"], "first": "x"})
        refused = [
            client.post("/api/positions", content=b"not json"),
            client.post("/api/positions", json={"boards": "ox..x...."}),
            client.post("/api/positions", json=["........."] * 10_001),
            client.post("/api/positions", content=too_long),
            client.post("/api/positions", json=["........."], headers={"transfer-encoding": "chunked"}),
            client.post("/api/position", json=["........."]),
            client.get("/api/positions"),
        ]
    assert answer.status_code == 200
    found = answer.json()["positions"]
    assert found[0] == db.lookup("ox..x....").to_document()
    assert found[1]["input"] == "bad" and "expected 9 cells, got 3" in found[1]["error"]
    assert found[2] == db.lookup("x........", first="x").to_document() == again.json()["positions"][0]
    assert found[3] == {"input": '{"board": 3}', "error": found[3]["error"]} and "a record is" in found[3]["error"]
    assert found[4]["status"] == "o"
    assert [response.status_code for response in refused] == [400, 400, 413, 413, 411, 413, 405]
    assert refused[2].json()["error"] == "10,001 boards in one request; at most 10,000"
    assert refused[3].json()["error"] == f"the body is {len(too_long):,} bytes; at most {1 << 20:,}"
