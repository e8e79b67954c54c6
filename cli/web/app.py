"""The ASGI app of `ttt-db serve`: one page (static files shipped in the package) and a JSON
API over `ttt_db.web.service.Service` (docs/api.md).

Every endpoint is in the route table; errors become answers in one place (`error_response`).
Starlette, not FastAPI: the API is GET endpoints and two POSTs (a check's cancel, a batch of boards) whose parameters
the service validates itself, and Starlette adds the least to each request and to start-up (no pydantic), which the
position budget (2,000 requests/s, p99 <= 10 ms on 2 cores shared with the load) needs more
than generated OpenAPI; docs/api.md documents the API instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final
from urllib.parse import parse_qsl

import anyio
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from ttt_db.errors import InputError, TttDbError
from ttt_db.search.algorithms import algorithms_document
from ttt_db.store.database import SolutionDatabase
from ttt_db.web.service import CHECK_IN_REQUEST_CELLS, MAX_BATCH_BYTES, ApiError, Service

STATIC: Final = Path(__file__).resolve().parent / "static"
HEAVY_REQUESTS_AT_ONCE: Final = 2
MAX_QUERY_BYTES: Final = 1024
"""No request needs more: a board, a name and a few numbers."""


STOPPING: Final = "the server is stopping"


def _in_daemon_thread(work: Callable[..., Any], args: Sequence[Any], done: asyncio.Future[Any]) -> None:
    """Run `work(*args)` on a thread of its own and settle `done` with its result or exception."""
    loop = done.get_loop()

    def settle(result: Any, error: BaseException | None) -> None:
        if done.done():  # abandoned: the server is stopping
            return
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(result)

    def run() -> None:
        try:
            result, error = work(*args), None
        except BaseException as raised:  # delivered to the request, which answers for it
            result, error = None, raised
        with contextlib.suppress(RuntimeError):  # the loop has closed: no one waits any more
            loop.call_soon_threadsafe(settle, result, error)

    threading.Thread(target=run, name="ttt-db request", daemon=True).start()


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message, "status": status}, status_code=status)


def error_response(error: Exception, path: str = "", method: str = "GET") -> JSONResponse:
    """The one mapping of an error to its answer (docs/api.md): the API's own refusals keep their
    status; the library's input errors are 400 and its other errors (a damaged database) 500;
    Starlette's 404 names the path, its 405 the methods allowed."""
    if isinstance(error, ApiError):
        return _error(error.status, error.message)
    if isinstance(error, InputError):
        return _error(400, str(error))
    if isinstance(error, TttDbError):
        return _error(500, str(error))
    if isinstance(error, HTTPException):
        if error.status_code == 404:
            return _error(404, f"no such path: {path}")
        if error.status_code == 405:
            allowed = (error.headers or {}).get("Allow", "GET")
            return _error(405, f"{method} is not allowed here: use {allowed}")
        return _error(error.status_code, str(error.detail))
    raise error


class PositionAnswers:
    """`GET /api/position`, a route whose endpoint is this bare ASGI app: it answers from the
    service's remembered JSON without building a Request or a Response (the one endpoint under
    load: 2,000 requests/s with p99 <= 10 ms on 2 cores)."""

    def __init__(self, games: Games) -> None:
        self.games = games

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        params = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True))
        body = self.games.service(params.get("game")).position_json(params.get("board"), params.get("first"))
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
            }
        )
        await send({"type": "http.response.body", "body": body})


@dataclass(frozen=True)
class Endpoint:
    """An endpoint answered by a `Service` method, called with its query parameters in order."""

    path: str
    method: str
    params: tuple[str, ...]
    heavy: bool = False  # off the event loop, HEAVY_REQUESTS_AT_ONCE at a time
    timed: bool = False  # also told when the request arrived
    verbs: tuple[str, ...] = ("GET",)


SERVICE_ENDPOINTS: Final = (
    Endpoint("/api/ais", "ais_document", ("ai",)),
    Endpoint("/api/mistake", "mistake", ("board", "moves", "first"), heavy=True),
    Endpoint("/api/ai-move", "ai_move", ("ai", "board", "first", "seed"), heavy=True),
    Endpoint("/api/check", "check", ("ai", "offset", "limit"), heavy=True),
    Endpoint("/api/check/cancel", "cancel_check", ("ai",), verbs=("POST",)),
    Endpoint("/api/score", "score", ("ai",), heavy=True),
    Endpoint("/api/line", "line", ("board", "first", "shortest")),
    Endpoint("/api/stats", "stats", (), heavy=True),
    Endpoint("/api/search", "search", ("algorithm", "board", "first", "trace"), heavy=True, timed=True),
)


BODY_PATHS: Final = frozenset({"/api/positions", "/api/score"})
"""The endpoints that take a request body, of at most MAX_BATCH_BYTES, its length given."""


class RequestLimits:
    """Refuses what no endpoint needs before any work: a query string over MAX_QUERY_BYTES
    (414), a request body anywhere but BODY_PATHS, or one there over MAX_BATCH_BYTES (413) or
    of a length not given (411)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            problem: tuple[int, str] | None = None
            query = scope.get("query_string", b"")
            if len(query) > MAX_QUERY_BYTES:
                problem = (414, f"the query string is {len(query):,} bytes; at most {MAX_QUERY_BYTES:,}")
            elif scope["path"] in BODY_PATHS:
                problem = _batch_problem(scope)
            else:
                for name, value in scope.get("headers", []):
                    if name == b"content-length" and value not in (b"0", b""):
                        problem = (413, f"no endpoint takes a request body (this one has {value.decode()} bytes)")
                    elif name == b"transfer-encoding":
                        problem = (413, "no endpoint takes a request body")
            if problem is not None:
                await _error(*problem)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _batch_problem(scope: Scope) -> tuple[int, str] | None:
    """Why a body-taking request is refused before it is read, if it is."""
    headers = dict(scope.get("headers", []))
    if b"transfer-encoding" in headers:
        return 411, "give the body's Content-Length (a chunked body is not read)"
    length = headers.get(b"content-length", b"0").decode("latin-1")
    if not length.isdigit():
        return 400, f"invalid Content-Length {length!r}"
    if int(length) > MAX_BATCH_BYTES:
        return 413, f"the body is {int(length):,} bytes; at most {MAX_BATCH_BYTES:,}"
    return None


def _inlined_page(boot: str) -> str:
    """index.html with its stylesheet, script and first data inlined: the page is one response,
    playable without another round trip (the first-load budget is 300 ms)."""
    page = (STATIC / "index.html").read_text(encoding="utf-8")
    style = (STATIC / "style.css").read_text(encoding="utf-8")
    script = (STATIC / "app.js").read_text(encoding="utf-8").replace("</", "<\\/")
    return (
        page.replace('<link rel="stylesheet" href="/static/style.css">', f"<style>\n{style}</style>")
        .replace('<script src="/static/app.js" defer></script>', "")
        .replace("__BOOT__", boot.replace("</", "<\\/"))
        .replace("</body>", f"<script>\n{script}</script>\n</body>")
    )


class Games:
    """The served games, each with its own service; the first is the default."""

    def __init__(self, databases: Sequence[SolutionDatabase], check_in_request_cells: int) -> None:
        self.services = {
            database.game.name: Service(database, check_in_request_cells=check_in_request_cells)
            for database in databases
        }
        self.default = databases[0].game.name
        self.names = list(self.services)
        self._pages: dict[str, str] = {}

    def service(self, name: str | None) -> Service:
        """The service of the game `name` (the default when not given); ApiError when not served."""
        if name in (None, ""):
            return self.services[self.default]
        found = self.services.get(str(name).strip().lower())
        if found is None:
            raise ApiError(400, f"game {name!r} is not served here; these are: {', '.join(self.names)}")
        return found

    def boot(self, name: str | None) -> dict[str, Any]:
        """The page's first data for the game `name` (the default game's for one not served): the
        game, the lists and the empty board's position, so the page plays at once."""
        service = self.services[name if name in self.services else self.default]
        return {
            "game": service.game_document(),
            "games": self.names,
            "default_game": self.default,
            "ais": service.ais_document(),
            "algorithms": algorithms_document(),
            "position": json.loads(service.position_json(None)),
        }

    def page(self, name: str | None) -> str:
        """The page with the game's first data inlined (the default game's for one not served,
        which the page then names)."""
        key = name if name in self.services else self.default
        if key not in self._pages:
            self._pages[key] = _inlined_page(json.dumps(self.boot(key)))
        return self._pages[key]


def create_app(
    database: SolutionDatabase, *more: SolutionDatabase, check_in_request_cells: int = CHECK_IN_REQUEST_CELLS
) -> Starlette:
    """The app over open databases, one per game, the first the default (the caller closes them).
    A check of a game with more than `check_in_request_cells` cells runs in the background."""
    games = Games([database, *more], check_in_request_cells)
    limiter = anyio.CapacityLimiter(HEAVY_REQUESTS_AT_ONCE)
    stopping = asyncio.Event()  # set by `ttt_db.web.server.Server` the moment Ctrl-C or SIGTERM arrives

    async def heavy(work: Callable[..., Any], *args: Any) -> Any:
        """A search, an AI's move or a check: off the event loop, at most HEAVY_REQUESTS_AT_ONCE at a
        time (the others wait their turn), so that positions keep answering fast whatever runs. When
        the server stops, each answers 503 at once; its thread is a daemon, so it never holds the
        process open."""
        async with limiter:
            if stopping.is_set():
                raise ApiError(503, STOPPING)
            done = asyncio.get_running_loop().create_future()
            _in_daemon_thread(work, args, done)
            stop = asyncio.ensure_future(stopping.wait())
            try:
                await asyncio.wait({done, stop}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                stop.cancel()
            if not done.done():
                for served in games.services.values():
                    served.halted.set()  # work that listens (a score) gives up; the rest is abandoned
                raise ApiError(503, STOPPING)
            return done.result()

    def param(request: Request, name: str) -> str | None:
        return request.query_params.get(name)

    def service(request: Request) -> Service:
        return games.service(param(request, "game"))

    def answering(endpoint: Endpoint) -> Callable[[Request], Awaitable[Response]]:
        """The handler of a service endpoint: its query parameters, in order, to its method."""

        async def answer(request: Request) -> Response:
            work = getattr(service(request), endpoint.method)
            args: list[Any] = [param(request, name) for name in endpoint.params]
            if endpoint.timed:
                args.append(time.monotonic())  # its deadline counts its wait for a slot
            return JSONResponse(await heavy(work, *args) if endpoint.heavy else work(*args))

        return answer

    async def game(request: Request) -> Response:
        return JSONResponse(service(request).game_document() | {"games": games.names})

    async def algorithms(request: Request) -> Response:
        return JSONResponse(algorithms_document())

    async def page(request: Request) -> Response:
        return HTMLResponse(games.page(param(request, "game")), headers={"Cache-Control": "no-cache"})

    async def positions(request: Request) -> Response:
        body = await _body(request)
        if body is None:
            return Response(status_code=408)  # the client went away, or came too slowly: no one hears this
        return Response(await heavy(service(request).positions_json, body), media_type="application/json")

    async def score_table(request: Request) -> Response:
        body = await _body(request)
        if body is None:
            return Response(status_code=408)
        return JSONResponse(await heavy(service(request).score_table, body, param(request, "name")))

    async def answer_error(request: Request, error: Exception) -> Response:
        return error_response(error, request.url.path, request.method)

    routes: list[Any] = [
        Route("/api/position", PositionAnswers(games), methods=["GET"]),
        Route("/", page),
        Route("/api/game", game),
        *(Route(endpoint.path, answering(endpoint), methods=list(endpoint.verbs)) for endpoint in SERVICE_ENDPOINTS),
        Route("/api/algorithms", algorithms),
        Route("/api/positions", positions, methods=["POST"]),
        Route("/api/score", score_table, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(
        routes=routes, exception_handlers=dict.fromkeys((ApiError, TttDbError, HTTPException), answer_error)
    )
    app.state.stopping = stopping
    app.state.games = games
    app.add_middleware(RequestLimits)  # added last, so it runs first
    return app


async def _body(request: Request) -> bytes | None:
    """The request's body, or None when the client went away before it had all come (the server
    answers a body too slow 408 and closes: `ttt_db.web.server`)."""
    try:
        return await request.body()
    except ClientDisconnect:
        return None
