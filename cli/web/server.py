"""How `ttt-db serve` runs the app: uvicorn, with the bounds its httptools protocol lacks.

- A request must arrive whole (head and body) within `request_seconds` of its first byte, or of
  the connection when it is the first: a client that sends half a request, or connects and says
  nothing, is answered 408 and closed instead of holding a connection for ever.
- A request's head (request line and headers) is at most `head_bytes`: a longer one is answered
  431 and closed instead of being buffered (plain uvicorn accepted megabytes).
- At most `CONNECTIONS` connections and requests at once; beyond that uvicorn answers 503.
- Ctrl-C or SIGTERM: searches, AI moves and checks still running answer 503 at once (`Server`),
  and anything else still running is abandoned after `SHUTDOWN_SECONDS`.
"""

from __future__ import annotations

import asyncio
from types import FrameType
from typing import TYPE_CHECKING, Any, Final

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

if TYPE_CHECKING:
    from starlette.applications import Starlette

REQUEST_SECONDS: Final = 10.0
HEAD_BYTES: Final = 16 * 1024
CONNECTIONS: Final = 512
SHUTDOWN_SECONDS: Final = 1

_REASONS: Final = {408: b"Request Timeout", 431: b"Request Header Fields Too Large"}


class GuardedHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with a time limit on receiving each request and a size
    limit on its head (`guarded_protocol` sets both)."""

    request_seconds: float = REQUEST_SECONDS
    head_bytes: int = HEAD_BYTES

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._head_seen = 0
        self._reading_head = True
        self._receiving: asyncio.TimerHandle | None = None
        self._start_receiving()

    def _start_receiving(self) -> None:
        if self._receiving is None:
            self._receiving = self.loop.call_later(
                self.request_seconds, self._refuse, 408, "the request came too slowly"
            )

    def _stop_receiving(self) -> None:
        if self._receiving is not None:
            self._receiving.cancel()
            self._receiving = None

    def data_received(self, data: bytes) -> None:
        if self._reading_head:
            self._head_seen += len(data)
            if self._head_seen > self.head_bytes:
                self._refuse(431, f"the request's head is over {self.head_bytes:,} bytes")
                return
        super().data_received(data)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._reading_head = True
        self._start_receiving()

    def on_headers_complete(self) -> None:
        self._reading_head = False
        self._head_seen = 0
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self._stop_receiving()
        super().on_message_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_receiving()
        super().connection_lost(exc)

    def _refuse(self, status: int, message: str) -> None:
        self._receiving = None
        if self.transport.is_closing():
            return
        body = message.encode("ascii")
        head = b"HTTP/1.1 %d %s\r\n" % (status, _REASONS[status])
        head += b"content-type: text/plain; charset=utf-8\r\ncontent-length: %d\r\nconnection: close\r\n\r\n" % len(
            body
        )
        self.transport.write(head + body)
        self.transport.close()


def guarded_protocol(request_seconds: float = REQUEST_SECONDS, head_bytes: int = HEAD_BYTES) -> type[Any]:
    """The protocol class with these limits (tests choose shorter ones)."""
    return type(
        "GuardedHttpTools",
        (GuardedHttpToolsProtocol,),
        {"request_seconds": request_seconds, "head_bytes": head_bytes},
    )


class Server(uvicorn.Server):
    """uvicorn's server, telling the app (`cli.web.app.create_app`'s `state.stopping`) that it is
    stopping as soon as Ctrl-C or SIGTERM arrives, before it waits for requests to end."""

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        stopping: asyncio.Event | None = getattr(getattr(self.config.app, "state", None), "stopping", None)
        if stopping is not None:
            try:
                asyncio.get_running_loop().call_soon_threadsafe(stopping.set)
            except RuntimeError:  # no loop runs: nothing waits on it
                stopping.set()
        super().handle_exit(sig, frame)


def server_config(
    app: Starlette, *, request_seconds: float = REQUEST_SECONDS, head_bytes: int = HEAD_BYTES
) -> uvicorn.Config:
    return uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        http=guarded_protocol(request_seconds, head_bytes),
        limit_concurrency=CONNECTIONS,
        timeout_graceful_shutdown=SHUTDOWN_SECONDS,
    )
