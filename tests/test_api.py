"""The web API through Starlette's test client: every endpoint, bad input (400, quoting it),
unknown AIs and paths, oversized requests, and the bounds on each request's work."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import reference
from starlette.testclient import TestClient

from ttt_db.ais.rule_based import ai14s
from ttt_db.game.definition import Game
from ttt_db.store import published
from ttt_db.store.database import SolutionDatabase, open_database
from ttt_db.web.app import create_app
from ttt_db.web.service import MAX_BATCH_BYTES, TRACE_NODE_LIMIT


@pytest.fixture(scope="module")
def client(db: SolutionDatabase) -> Iterator[TestClient]:
    with TestClient(create_app(db)) as test_client:
        yield test_client


def test_position_is_the_best_moves_json_document(client: TestClient, run) -> None:
    response = client.get("/api/position", params={"board": "ox..x...."})
    assert response.status_code == 200 and response.headers["content-type"] == "application/json"
    assert response.json() == json.loads(run("best-moves", "ox..x....", "--json").stdout)
    moves = {m["move"]: (m["value"], m["remoteness"]) for m in response.json()["moves"]}
    assert moves[7] == ("draw", 5) and moves[2] == ("loss", 1)  # every legal move, valued for the mover


def test_position_defaults_to_the_empty_board_and_takes_first(client: TestClient) -> None:
    empty = client.get("/api/position").json()
    assert (empty["board"], empty["value"], empty["remoteness"]) == (".........", "draw", 9)
    x_first = client.get("/api/position", params={"board": "....x....", "first": "x"}).json()
    assert (x_first["first"], x_first["to_move"]) == ("x", "o")


@pytest.mark.parametrize(
    ("params", "quoted"),
    [
        ({"board": "ox..x..x"}, "invalid board 'ox..x..x': expected 9 cells, got 8"),
        ({"board": "ooo.xx..x"}, "invalid board 'ooo.xx..x': o has three in a row"),
        ({"board": "ox..x....", "first": "z"}, "invalid first 'z'"),
        ({"board": "o" * 65}, "parameter 'board' is 65 characters long; at most 64"),
    ],
)
def test_bad_boards_are_400_with_the_input_quoted(client: TestClient, params: dict[str, str], quoted: str) -> None:
    response = client.get("/api/position", params=params)
    assert response.status_code == 400
    assert quoted in response.json()["error"]


def test_game_and_lists(client: TestClient) -> None:
    game = client.get("/api/game").json()
    assert (game["game"], game["rows"], game["columns"], game["empty_board"]) == ("3x3k3", 3, 3, ".........")
    assert game["cell_names"][7] == "b3" and game["figures"]["decision"] == published.LIST_SIZES["decision"]
    ais = {ai["name"]: ai for ai in client.get("/api/ais").json()}
    assert ais["ai14s"]["available"] and ais["perfect"]["available"] and "dls@3" in ais
    assert "alphabeta" in [a["name"] for a in client.get("/api/algorithms").json()]


def test_ai_move_answers_from_the_candidates(client: TestClient) -> None:
    answer = client.get("/api/ai-move", params={"ai": "perfect", "board": "......o.x"}).json()
    assert answer["candidates"] == [0, 2, 3] and answer["move"] in (0, 2, 3)
    seeded = [
        client.get("/api/ai-move", params={"ai": "ai2s", "board": ".........", "seed": "7"}).json()["move"]
        for _ in range(3)
    ]
    assert len(set(seeded)) == 1
    assert client.get("/api/ai-move", params={"ai": "ai14s", "board": "......o.x"}).json()["candidates"] == [4]


@pytest.mark.parametrize(
    ("params", "status", "message"),
    [
        ({"ai": "perfekt", "board": "........."}, 400, "unknown AI 'perfekt'"),
        ({"ai": "my_bots:play", "board": "........."}, 400, "run from the command line only"),
        ({"ai": "perfect", "board": "ooo.xx..."}, 400, "the game is over"),
        ({"ai": "iddfs@30", "board": "........."}, 400, "at most 2 s a move"),
        ({"board": "........."}, 400, "missing parameter 'ai'"),
    ],
)
def test_ai_move_refusals(client: TestClient, params: dict[str, str], status: int, message: str) -> None:
    response = client.get("/api/ai-move", params=params)
    assert response.status_code == status and message in response.json()["error"]


def test_check_of_ai14s_pages_its_failures(client: TestClient) -> None:
    first = client.get("/api/check", params={"ai": "ai14s", "limit": "20"}).json()
    assert first["solved"] is False and first["weak"]["solved"] is True
    expected = reference.strong_check_of(ai14s)
    strong = first["strong"]
    assert (strong["correct"], strong["total"], strong["failures_total"]) == (
        expected.correct,
        expected.total,
        len(expected.failures),
    )
    page = first["strong"]["failures"]
    assert len(page) == 20 and page[0]["board"] == "......o.x" and page[0]["to_move"] == "o"
    last = client.get("/api/check", params={"ai": "ai14s", "offset": "40", "limit": "20"}).json()["strong"]
    assert (len(last["failures"]), last["failures_from"]) == (12, 40)
    boards = {f["board"] for f in page} | {f["board"] for f in last["failures"]}
    assert len(boards) == 32


def test_check_refusals(client: TestClient) -> None:
    assert client.get("/api/check", params={"ai": "ai14s", "limit": "500"}).status_code == 400
    assert "invalid offset '²'" in client.get("/api/check", params={"ai": "ai14s", "offset": "²"}).json()["error"]
    assert "unknown AI 'nobody'" in client.get("/api/check", params={"ai": "nobody"}).json()["error"]
    assert "by the clock" in client.get("/api/check", params={"ai": "iddfs@0.01"}).json()["error"]


def test_score_is_the_measures_document(client: TestClient, db: SolutionDatabase) -> None:
    from ttt_db.ais.registry import load_ai
    from ttt_db.checks.measures import measure_policy

    answer = client.get("/api/score", params={"ai": "ai1s"})
    assert answer.status_code == 200
    assert answer.json() == measure_policy(load_ai("ai1s", lambda: db), db, costliest=3).to_document()
    refused = client.get("/api/score", params={"ai": "iddfs@0.01"})
    assert refused.status_code == 400 and "by the clock" in refused.json()["error"]


def test_a_policy_file_posted_is_scored_as_the_command_scores_it(client: TestClient, db: SolutionDatabase) -> None:
    from ttt_db.ais.tabular import policy_from_document
    from ttt_db.checks.measures import measure_policy

    table = {"first": "o", "policy": {"o........": {"4": 1}, "o...x....": [8], "x.o......": {"b2": "1/3", "1": "2/3"}}}
    body = json.dumps(table)
    answer = client.post("/api/score", params={"name": "q.json"}, content=body)
    assert answer.status_code == 200
    expected = measure_policy(policy_from_document(table, db.game, name="q.json"), db, costliest=3).to_document()
    assert answer.json() == expected and answer.json()["ai"] == "q.json"
    assert client.post("/api/score", content=body).json()["ai"] == "a policy file"  # no name given
    long_name = "q" * 100 + ".json"  # a label: cut, not refused
    assert client.post("/api/score", params={"name": long_name}, content=body).json()["ai"] == "q" * 63 + "…"
    wrong = client.post("/api/score", content=json.dumps({"x.o......": {"0": 1}}))
    assert wrong.status_code == 400 and "the entry for board 'x.o......'" in wrong.json()["error"]
    assert client.post("/api/score", content="{").status_code == 400
    # issue 58: 60 bytes that took 144 s and 1.25 GB, then a 500
    hostile = client.post("/api/score", content=json.dumps({"policy": {"o........": {"4": "1e-1000000", "8": "1"}}}))
    assert hostile.status_code == 400 and "invalid input '1e-1000000'" in hostile.json()["error"]
    too_big = client.post("/api/score", content=b" " * (MAX_BATCH_BYTES + 1))
    assert too_big.status_code == 413
    with TestClient(create_app(db, check_in_request_cells=4)) as measured_elsewhere:
        refused = measured_elsewhere.post("/api/score", content=body)
    assert refused.status_code == 400 and "ttt-db score FILE --game 3x3k3" in refused.json()["error"]


def test_the_notebook_widget_posts_a_policy_file_as_the_page_does(db: SolutionDatabase) -> None:
    """The widget answers the page's requests over the kernel: a request's body goes along."""
    pytest.importorskip("anywidget", reason="anywidget is not installed: pip install -e '.[notebook]'")
    import asyncio

    from ttt_db.web.widget import Page

    body = json.dumps({"o........": [4]})
    status, document = asyncio.run(Page(db).request("score", "name=q.json", "POST", body))
    with TestClient(create_app(db)) as client:
        assert (status, document) == (200, client.post("/api/score", params={"name": "q.json"}, content=body).json())


def test_search_with_its_trace(client: TestClient) -> None:
    result = client.get("/api/search", params={"algorithm": "alphabeta", "trace": "1"}).json()
    _, calls = reference.seed_alpha_beta(".........")
    assert (result["nodes"], result["agrees"]) == (calls, True)
    trace = result["trace"]
    assert len(trace["nodes"]) == calls and len(trace["order"]) == 2 * calls
    assert trace["order"][0] == 1 and trace["order"][-1] == -1  # the root is entered first and left last
    root = trace["nodes"][0]
    assert (root["board"], root["value"], root["parent"]) == (".........", 0, None)


def test_search_work_is_bounded(client: TestClient) -> None:
    traced = client.get("/api/search", params={"algorithm": "minimax", "trace": "1"})
    assert traced.status_code == 400 and f"at most {TRACE_NODE_LIMIT:,} nodes" in traced.json()["error"]
    plain = client.get("/api/search", params={"algorithm": "minimax", "board": "ox..x...."}).json()
    assert plain["agrees"] and "trace" not in plain
    unknown = client.get("/api/search", params={"algorithm": "bogosort"})
    assert unknown.status_code == 400 and "invalid search algorithm 'bogosort'" in unknown.json()["error"]


def test_unknown_paths_methods_and_oversized_requests(client: TestClient) -> None:
    missing = client.get("/api/nothing")
    assert missing.status_code == 404 and missing.json()["error"] == "no such path: /api/nothing"
    assert client.post("/api/position", params={"board": "........."}).status_code == 405
    long_query = client.get("/api/position?board=" + "." * 2000)
    assert long_query.status_code == 414 and "at most 1,024" in long_query.json()["error"]
    with_body = client.request("GET", "/api/position", content=b"x" * 10)
    assert with_body.status_code == 413


def test_the_page_and_its_assets_ship_in_the_package(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and 'id="board"' in page.text
    for asset in ("/static/app.js", "/static/style.css"):
        assert client.get(asset).status_code == 200
    assert "http" not in page.text.replace("http://www.w3.org", "")  # nothing from a CDN


def test_another_game_draws_its_own_board(tmp_path: Path) -> None:
    from ttt_db.build.pipeline import build_database

    game = Game.parse("2x3k2")
    build_database(tmp_path / "g.sqlite", game=game)
    with open_database(tmp_path / "g.sqlite", game=game) as database, TestClient(create_app(database)) as client:
        assert client.get("/api/game").json()["columns"] == 3
        assert client.get("/api/position", params={"board": "o.x/..."}).json()["value"] == "win"
        refused = client.get("/api/ais").json()
        assert not next(ai for ai in refused if ai["name"] == "ai14s")["available"]
        assert client.get("/api/ai-move", params={"ai": "minimax-tt", "board": "......"}).status_code == 200


def test_several_games_from_one_server(db: SolutionDatabase, tmp_path: Path) -> None:
    from ttt_db.build.pipeline import build_database

    game = Game.parse("2x3k2")
    build_database(tmp_path / "g.sqlite", game=game)
    with open_database(tmp_path / "g.sqlite", game=game) as small, TestClient(create_app(db, small)) as client:
        assert client.get("/api/game").json()["games"] == ["3x3k3", "2x3k2"]
        assert client.get("/api/game", params={"game": "2x3k2"}).json()["cells"] == 6
        assert client.get("/api/position", params={"game": "2x3k2"}).json()["board"] == "......"
        assert client.get("/api/position").json()["board"] == "........."
        moved = client.get("/api/ai-move", params={"game": "2x3k2", "ai": "perfect", "board": "o.x..."}).json()
        assert moved["move"] in small.lookup("o.x...").best_moves
        refused = client.get("/api/position", params={"game": "9x9k5"})
        assert refused.status_code == 400
        assert refused.json()["error"] == "game '9x9k5' is not served here; these are: 3x3k3, 2x3k2"
        assert "__BOOT__" not in client.get("/", params={"game": "2x3k2"}).text
        assert '"game": "2x3k2"' in client.get("/", params={"game": "2x3k2"}).text


def test_serve_prints_its_url_answers_and_stops_on_ctrl_c(served) -> None:
    import signal
    import urllib.request

    server, line = served
    assert line.startswith("ttt-db serves 3x3k3 at http://127.0.0.1:")
    assert line.rstrip().endswith("(Ctrl-C stops it)")
    url = line.split(" at ")[1].split()[0]
    with urllib.request.urlopen(url + "api/position?board=ox..x....", timeout=10) as response:
        assert json.loads(response.read())["best_moves"] == [7]
    server.send_signal(signal.SIGINT)
    out, err = server.communicate(timeout=10)
    assert server.returncode == 130 and out.strip() == "stopped", err


def test_serve_refuses_a_port_in_use(run) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        result = run("serve", "--port", str(taken.getsockname()[1]))
    assert result.exit_code == 2 and "cannot listen on 127.0.0.1:" in result.stderr


def test_a_check_of_a_large_game_runs_in_the_background_with_its_progress(db: SolutionDatabase) -> None:
    import time

    from ttt_db.ais.registry import load_ai
    from ttt_db.checks.report import run_checks

    with TestClient(create_app(db, check_in_request_cells=0)) as client:  # every game is "large" here
        started = client.get("/api/check", params={"ai": "ai1s", "limit": "5"}).json()
        assert started["status"] in ("running", "done")
        other = client.get("/api/check", params={"ai": "ai2s"})
        if other.status_code == 409:  # one check at a time, and it says which
            assert "the server is checking ai1s on 3x3k3" in other.json()["error"]
        deadline = time.monotonic() + 300  # a guard against a hang, not a budget: a busy host is slow
        result = started
        while result["status"] == "running":
            assert time.monotonic() < deadline
            assert result["done"] >= 0 and result["phase"] in ("starting", "weak", "strong")
            time.sleep(0.05)
            result = client.get("/api/check", params={"ai": "ai1s", "limit": "5"}).json()
        reaped_by = time.monotonic() + 30  # issue 59: a <defunct> worker stayed beside the server
        while _zombie_children() and time.monotonic() < reaped_by:
            time.sleep(0.05)
        assert not _zombie_children()
    from ttt_db.checks.budget import CheckBudget
    from ttt_db.web.checking import PAGE_FAILURES_KEPT

    expected = run_checks(load_ai("ai1s"), db, budget=CheckBudget(failures_kept=PAGE_FAILURES_KEPT)).to_document(0, 5)
    assert result == expected | {"status": "done"}  # the same result as the command line's


def _zombie_children() -> list[int]:
    """This process's children that have ended and not been waited for (Linux's /proc; else none)."""
    import os

    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] == "Z" and int(fields[1]) == os.getpid():
            found.append(int(stat.parent.name))
    return found


def test_a_background_check_can_be_cancelled_and_frees_the_server_for_another(db_3x4k3_path) -> None:
    import time

    from ttt_db.game.definition import Game
    from ttt_db.store.database import open_database

    with (
        open_database(db_3x4k3_path, game=Game.parse("3x4k3")) as db,
        TestClient(create_app(db, check_in_request_cells=0)) as client,
    ):
        assert client.post("/api/check/cancel", params={"ai": "ai2s"}).status_code == 404  # none running
        started = client.get("/api/check", params={"ai": "dls@5"}).json()  # half a minute of searching
        assert started["status"] == "running" and started["eta_seconds"] is None
        deadline = time.monotonic() + 300  # a guard against a hang, not a budget: a busy host is slow
        while started["phase"] != "strong" or not started["done"]:
            assert time.monotonic() < deadline
            time.sleep(0.1)
            started = client.get("/api/check", params={"ai": "dls@5"}).json()
        assert started["total"] == db.meta()["figures"]["decision_canonical"]  # symmetric: once per class
        assert started["eta_seconds"] > 0  # the time left at its rate so far
        assert client.get("/api/check", params={"ai": "ai2s"}).status_code == 409
        cancelled = client.post("/api/check/cancel", params={"ai": "dls@5"})
        assert cancelled.json() == {"ai": "dls@5", "game": "3x4k3", "status": "cancelled"}
        assert client.get("/api/check/cancel", params={"ai": "dls@5"}).status_code == 405
        other = client.get("/api/check", params={"ai": "ai2s"})
        assert other.status_code == 200 and other.json()["status"] in ("running", "done")


def test_check_reports_are_kept_once_per_ai_and_bounded(db: SolutionDatabase, monkeypatch) -> None:
    from ttt_db.web import service as web_service

    service = web_service.Service(db)
    answers = [service.check(name, "0", "1") for name in ["dls@1", "dls@01", "DLS@001", "dls@1 "]]
    assert {answer["ai"] for answer in answers} == {"dls@1"} and list(service._checks) == ["dls@1"]
    monkeypatch.setattr(web_service, "CACHED_CHECKS", 3)
    for name in ["dls@0", "dls@2", "ai1s", "dls@1", "abdls@1"]:
        service.check(name, "0", "1")
    assert list(service._checks) == ["ai1s", "dls@1", "abdls@1"]  # the least recently asked forgotten
