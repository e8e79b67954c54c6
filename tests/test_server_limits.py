"""No client can wear the server down (issue 21): half-sent requests and silent connections are
answered 408 and closed, an oversized head 431, hostile parameters 400 (never 500), a search
stops at its deadline, and Ctrl-C or SIGTERM stops the server while searches run, answering
them 503 instead of waiting. Every server here listens on 127.0.0.1, on a free port."""

from __future__ import annotations

import contextlib
import http.client
import json
import re
import select
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from ttt_db.game.definition import TICTACTOE
from ttt_db.store.database import SolutionDatabase
from ttt_db.web.app import create_app
from ttt_db.web.server import Server, server_config
from ttt_db.web.service import Service

REQUEST_SECONDS = 0.5
HEAD_BYTES = 2048


@pytest.fixture(scope="module")
def address(db: SolutionDatabase) -> Iterator[tuple[str, int]]:
    """A server with short limits, in this process."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    server = Server(server_config(create_app(db), request_seconds=REQUEST_SECONDS, head_bytes=HEAD_BYTES))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "the test server did not start"
        time.sleep(0.02)
    yield listener.getsockname()
    server.should_exit = True
    thread.join(timeout=10)


def _answer(connection: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    connection.settimeout(30)
    received = b""
    while chunk := connection.recv(65536):
        received += chunk
    return received


def _one_response(connection: socket.socket) -> bytes:
    """One whole response on a kept-alive connection: its head, then as many bytes as its
    content-length says (a busy server may send them in several pieces)."""
    received = b""
    while b"\r\n\r\n" not in received:
        received += connection.recv(65536)
    head, _, body = received.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")
    )
    while len(body) < length:
        body += connection.recv(65536)
    return head + b"\r\n\r\n" + body


def _position(address: tuple[str, int]) -> int:
    url = f"http://{address[0]}:{address[1]}/api/position?board=ox..x...."
    with urllib.request.urlopen(url, timeout=10) as response:
        return int(response.status)


def test_half_sent_requests_are_closed_while_positions_keep_answering(address: tuple[str, int]) -> None:
    """200 clients each send half a request and wait (one was held 75 s before): each is answered
    408 and closed, and a whole request meanwhile answers at once."""
    held = [socket.create_connection(address) for _ in range(200)]
    for connection in held:
        connection.sendall(b"GET /api/position?board=ox")
    assert _position(address) == 200
    answers = [_answer(connection) for connection in held]
    assert all(answer.startswith(b"HTTP/1.1 408 Request Timeout\r\n") for answer in answers)
    for connection in held:
        connection.close()


def test_a_connection_that_says_nothing_is_closed(address: tuple[str, int]) -> None:
    with socket.create_connection(address) as silent:
        assert _answer(silent).startswith(b"HTTP/1.1 408 ")


def test_a_slow_second_request_on_a_kept_alive_connection_is_closed(address: tuple[str, int]) -> None:
    with socket.create_connection(address) as connection:
        connection.sendall(b"GET /api/position?board=ox..x.... HTTP/1.1\r\nHost: t\r\n\r\n")
        connection.settimeout(10)
        assert _one_response(connection).startswith(b"HTTP/1.1 200 OK\r\n")
        connection.sendall(b"GET /api/posi")
        assert _answer(connection).startswith(b"HTTP/1.1 408 ")


@pytest.mark.parametrize("size", [HEAD_BYTES + 1, 16 * 1024 * 1024])
def test_an_oversized_head_is_refused_without_being_read(address: tuple[str, int], size: int) -> None:
    """A 16 MB header was accepted; the head is refused as soon as it passes its limit."""
    with socket.create_connection(address) as connection:
        head = b"GET /api/position HTTP/1.1\r\nHost: t\r\nX-Padding: "
        head += b"a" * (size - len(head))
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # refused before it was all sent
            connection.sendall(head)
        answer = _answer(connection)
    assert answer.startswith(b"HTTP/1.1 431 Request Header Fields Too Large\r\n")
    assert answer.endswith(f"the request's head is over {HEAD_BYTES:,} bytes".encode())


HOSTILE = [
    ("/api/ai-move", {"ai": "iddfs@nan", "board": "........."}),
    ("/api/ai-move", {"ai": "iddfs@inf", "board": "........."}),
    ("/api/ai-move", {"ai": "iddfs@-1", "board": "........."}),
    ("/api/ai-move", {"ai": "dls@1e9", "board": "........."}),
    ("/api/ai-move", {"ai": "dls@1", "board": ".........", "seed": "abc"}),
    ("/api/ai-move", {"ai": "dls@1", "board": ".........", "seed": "nan"}),
    ("/api/check", {"ai": "dls@1", "offset": "-1"}),
    ("/api/check", {"ai": "dls@1", "limit": "1e9"}),
    ("/api/check", {"ai": "dls@\u0661"}),
    ("/api/search", {"algorithm": "iddfs@nan"}),
    ("/api/search", {"algorithm": "iddfs@inf"}),
    ("/api/search", {"algorithm": "dls@99"}),
    ("/api/position", {"board": "ox..x....", "first": "nan"}),
    ("/api/position", {"board": "\x00" * 9}),
    ("/api/position", {"game": "4x4k4"}),
]


@pytest.mark.parametrize(("path", "params"), HOSTILE)
def test_hostile_parameters_are_refused_with_400(db: SolutionDatabase, path: str, params: dict[str, str]) -> None:
    with TestClient(create_app(db)) as client:
        answer = client.get(path, params=params)
    assert answer.status_code == 400, answer.text
    assert answer.json()["status"] == 400 and answer.json()["error"]


def test_unknown_parameters_are_ignored(db: SolutionDatabase) -> None:
    """`?timeout=abc` was an internal error; no endpoint takes it, so it is ignored."""
    with TestClient(create_app(db)) as client:
        answer = client.get("/api/search", params={"algorithm": "alphabeta", "board": "ox..x....", "timeout": "abc"})
    assert answer.status_code == 200 and answer.json()["agrees"]


def test_a_search_stops_at_its_deadline(db: SolutionDatabase) -> None:
    """Within the node limit, plain minimax from the empty board visits 549,946 nodes: far more
    than 1 ms of them."""
    from ttt_db.web.service import ApiError

    with pytest.raises(ApiError) as refused:
        Service(db, search_seconds=0.001).search("minimax", TICTACTOE.empty_board)
    assert refused.value.status == 503
    assert refused.value.message.startswith("a search over the web runs at most 0.001 s; minimax from '.........'")


@pytest.mark.parametrize(
    ("stop", "code", "said", "on_stderr"), [(signal.SIGINT, 130, "stopped", "\n"), (signal.SIGTERM, 143, "", "")]
)
def test_the_server_stops_while_searches_run_answering_them_503(
    served: tuple[subprocess.Popen[str], str], stop: signal.Signals, code: int, said: str, on_stderr: str
) -> None:
    """Ctrl-C ends it as every command ends on it, with exit 130 (and the line after the
    terminal's ^C ended); SIGTERM with exit 143."""
    server, line = served
    host, port = line.split(" at ")[1].split()[0].removeprefix("http://").rstrip("/").split(":")
    searches = [http.client.HTTPConnection(host, int(port), timeout=30) for _ in range(4)]
    for connection in searches:
        connection.request("GET", "/api/search?algorithm=minimax")  # each runs for a second or more
    with urllib.request.urlopen(f"http://{host}:{port}/api/position?board=.........", timeout=30) as response:
        assert response.status == 200  # answered after the searches' requests, which the server has read
    server.send_signal(stop)
    out, err = server.communicate(timeout=20)
    answers = []
    for connection in searches:
        response = connection.getresponse()
        answers.append((response.status, json.loads(response.read())["error"]))
        connection.close()
    assert (server.returncode, out.strip(), err) == (code, said, on_stderr)
    assert answers == [(503, "the server is stopping")] * 4


def _requests(address: tuple[str, int], *paths: str) -> bytes:
    return b"".join(f"GET {path} HTTP/1.1\r\nHost: {address[0]}\r\n\r\n".encode() for path in paths)


def _statuses(received: bytes) -> list[int]:
    """The status of every response in order (a body ends where the next status line begins)."""
    return [int(status) for status in re.findall(rb"HTTP/1\.1 (\d{3}) ", received)]


def test_pipelined_requests_are_answered_up_to_an_oversized_head(address: tuple[str, int]) -> None:
    """Requests sent in one burst, together over the head limit, each within it: all answered;
    the one oversized head after them alone refused, after their answers."""
    paths = [f"/api/position?board={'.' * 9}&n={n}" for n in range(150)]  # 150 heads, far over 2,048 bytes in all
    burst = _requests(address, *paths)
    assert len(burst) > 4 * HEAD_BYTES
    oversized = f"GET /api/position HTTP/1.1\r\nX-Padding: {'a' * 2 * HEAD_BYTES}\r\n\r\n".encode()
    with socket.create_connection(address) as connection:
        connection.sendall(burst + oversized)
        received = _answer(connection)
    assert _statuses(received) == [200] * 150 + [431]


def test_garbage_mid_pipeline_is_refused_after_the_requests_before_it(address: tuple[str, int]) -> None:
    with socket.create_connection(address) as connection:
        connection.sendall(_requests(address, "/api/game", "/api/position") + b"NOT HTTP AT ALL\r\n\r\n")
        received = _answer(connection)
    assert _statuses(received) == [200, 200, 400]


@contextlib.contextmanager
def _small_server(db: SolutionDatabase, connections: int, request_seconds: float) -> Iterator[tuple[str, int]]:
    """A server of at most `connections` connections, on a free port, stopped on leaving."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    server = Server(server_config(create_app(db), request_seconds=request_seconds, connections=connections))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    try:
        yield listener.getsockname()
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def test_an_idle_crowd_does_not_keep_a_client_out(db: SolutionDatabase) -> None:
    limit = 20
    with _small_server(db, limit, 30) as address:
        crowd = [socket.create_connection(address) for _ in range(2 * limit)]  # connected, saying nothing
        try:
            time.sleep(0.3)
            assert _position(address) == 200  # the longest-idle were closed to make room
            readable, _, _ = select.select(crowd, [], [], 2.0)
            closed = 0
            for idle in readable:
                with contextlib.suppress(OSError):
                    closed += idle.recv(1) == b""
            assert closed >= limit
        finally:
            for idle in crowd:
                idle.close()


def test_a_search_that_waited_out_its_deadline_is_answered_503(db: SolutionDatabase) -> None:
    from ttt_db.web.service import ApiError

    service = Service(db)
    with pytest.raises(ApiError) as refused:
        service.search("alphabeta", ".........", arrived=time.monotonic() - service.search_seconds - 1)
    assert refused.value.status == 503 and "waited that long for a free slot" in refused.value.message
    assert service.search("alphabeta", ".........", arrived=time.monotonic())["agrees"] is True


def test_a_body_that_never_comes_whole_is_answered_408(address: tuple[str, int]) -> None:
    """Issue 58: the app waited on the body, so the documented 408 never came."""
    with socket.create_connection(address) as connection:
        connection.sendall(b'POST /api/positions HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\n["ox')
        assert _answer(connection).startswith(b"HTTP/1.1 408 Request Timeout\r\n")
    assert _position(address) == 200


def test_a_crowd_sending_half_bodies_does_not_keep_a_client_out(db: SolutionDatabase) -> None:
    """Issue 58: 511 connections holding half-sent POST bodies locked every other client out with
    503 for as long as they were held; the longest-arriving are now answered 408 to make room."""
    limit = 20
    with _small_server(db, limit, 60) as address:
        crowd = []
        try:
            for _ in range(2 * limit):
                connection = socket.create_connection(address)
                connection.sendall(b"POST /api/positions HTTP/1.1\r\nHost: t\r\nContent-Length: 1000\r\n\r\n[")
                crowd.append(connection)
            time.sleep(0.3)
            assert [_position(address) for _ in range(5)] == [200] * 5
            readable, _, _ = select.select(crowd, [], [], 5.0)
            refused = [connection for connection in readable if _answer(connection).startswith(b"HTTP/1.1 408 ")]
            assert len(refused) >= limit
        finally:
            for connection in crowd:
                connection.close()


def test_a_score_over_the_web_is_held_to_a_searchs_deadline_and_to_the_servers_stop(db: SolutionDatabase) -> None:
    """Issue 58: POST /api/score ran as long as its policy took, past any deadline, and on after
    the server stopped; it now answers 503 as a search does."""
    from ttt_db.web.service import ApiError

    table = json.dumps({"policy": {"o........": {"4": "1/3", "8": "2/3"}}}).encode()
    quick = Service(db, search_seconds=1e-9)
    with pytest.raises(ApiError) as late:
        quick.score_table(table, "q.json")
    assert late.value.status == 503 and "a score over the web runs at most" in str(late.value)
    stopped = Service(db)
    stopped.halted.set()
    with pytest.raises(ApiError) as halted:
        stopped.score_table(table, "q.json")
    assert halted.value.status == 503 and "stopping" in str(halted.value)
    assert Service(db).score_table(table, "q.json")["ai"] == "q.json"  # within its time: answered
