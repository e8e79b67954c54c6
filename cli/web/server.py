"""How `ttt-db serve` runs the app: uvicorn, with the bounds its httptools protocol lacks.

- A request must arrive whole (head and body) within `request_seconds` of its first byte, or of
  the connection when it is the first: a client that sends half a request, or connects and says
  nothing, is answered 408 and closed instead of holding a connection for ever.
- A request's head (request line and headers) is at most `head_bytes`: a longer one is answered
  431 and closed instead of being buffered (plain uvicorn accepted megabytes).
- At most `CONNECTIONS` connections and requests at once; beyond that uvicorn answers 503. Past
  `SHED_SHARE` of them, each new connection closes the longest-idle ones, then those whose request
  has been arriving longest (answered 408), so that neither an idle crowd nor one sending
  half-requests can keep other clients out.
- A request whose body has not all come within `request_seconds` is answered 408 at once, though
  the app waits on it (its handler hears that the client went away).
- Pipelined requests are answered in order up to a bad one (a head too long, too slow, or not
  HTTP), which alone is refused, after those before it; nothing after it is read.
- Ctrl-C or SIGTERM: searches, AI moves and checks still running answer 503 at once (`Server`),
  and anything else still running is abandoned after `SHUTDOWN_SECONDS`.
"""

from __future__ import annotations

import asyncio
import time
from types import FrameType
from typing import TYPE_CHECKING, Any, Final

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

if TYPE_CHECKING:
    from starlette.applications import Starlette

REQUEST_SECONDS: Final = 10.0
HEAD_BYTES: Final = 16 * 1024
CONNECTIONS: Final = 512
SHED_SHARE: Final = 0.75
"""Past this share of CONNECTIONS, a new connection closes the longest-idle ones (no request in
progress), so that an idle crowd cannot keep every other client out."""
SHUTDOWN_SECONDS: Final = 1
SLICE_BYTES: Final = 1024
"""Received data is parsed this much at a time, so that the head limit counts each request's head
even when many requests arrive in one read."""

_REASONS: Final = {400: b"Bad Request", 408: b"Request Timeout", 431: b"Request Header Fields Too Large"}


class GuardedHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with a time limit on receiving each request and a size
    limit on its head (`guarded_protocol` sets both); pipelined requests answered in order up to
    a bad one, which alone is refused (431, 408 or 400); idle connections shed when the server
    nears its connection limit."""

    request_seconds: float = REQUEST_SECONDS
    head_bytes: int = HEAD_BYTES

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._head_seen = 0
        self._reading_head = True
        self._receiving: asyncio.TimerHandle | None = None
        self._refusal: bytes | None = None  # a refusal waiting for the requests before it
        self._active = self._begun = time.monotonic()
        self._start_receiving()
        if self.limit_concurrency is not None and len(self.connections) >= self.limit_concurrency * SHED_SHARE:
            self._shed_idle(int(self.limit_concurrency * SHED_SHARE))

    def _idle(self) -> bool:
        """No request in progress or begun, nothing waiting to be answered."""
        return (
            (self.cycle is None or self.cycle.response_complete)
            and not self.pipeline
            and self._head_seen == 0
            and self._refusal is None
            and not self.transport.is_closing()
        )

    def _arriving(self) -> bool:
        """A request begun and not all received (its head or its body still coming)."""
        return self._receiving is not None and not self.transport.is_closing() and not self._idle()

    def _shed_idle(self, target: int) -> None:
        """Close connections until at most `target` remain: the longest-idle first, then those whose
        request has been arriving longest (answered 408); never one whose request is being answered."""
        guarded = [p for p in self.connections if p is not self and isinstance(p, GuardedHttpToolsProtocol)]
        idle = sorted((p for p in guarded if p._idle()), key=lambda protocol: protocol._active)
        arriving = sorted((p for p in guarded if p._arriving()), key=lambda protocol: protocol._begun)
        for protocol in [*idle, *arriving][: max(0, len(self.connections) - target)]:
            if protocol._idle():
                protocol._stop_receiving()
                protocol.transport.close()
            else:
                protocol._refuse(408, "the request came too slowly, and others were waiting")

    def _start_receiving(self) -> None:
        if self._receiving is None:
            self._begun = time.monotonic()
            self._receiving = self.loop.call_later(
                self.request_seconds, self._refuse, 408, "the request came too slowly"
            )

    def _stop_receiving(self) -> None:
        if self._receiving is not None:
            self._receiving.cancel()
            self._receiving = None

    def data_received(self, data: bytes) -> None:
        self._active = time.monotonic()
        for start in range(0, len(data), SLICE_BYTES):
            if self._refusal is not None or self.transport.is_closing():
                return  # nothing after a bad request is read
            piece = data[start : start + SLICE_BYTES]
            if self._reading_head:
                self._head_seen += len(piece)
                if self._head_seen > self.head_bytes:
                    self._refuse(431, f"the request's head is over {self.head_bytes:,} bytes")
                    return
            super().data_received(piece)

    def send_400_response(self, msg: str) -> None:
        self._refuse(400, msg)

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

    def on_response_complete(self) -> None:
        self._active = time.monotonic()
        super().on_response_complete()
        if self._refusal is not None and not self._answering():
            self._send_refusal()

    def _answering(self) -> bool:
        """Whether requests before a refusal are still being answered."""
        return (self.cycle is not None and not self.cycle.response_complete) or bool(self.pipeline)

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_receiving()
        super().connection_lost(exc)

    def _refuse(self, status: int, message: str) -> None:
        """Answer `status` and close, once every request received before this one is answered."""
        self._stop_receiving()
        if self.transport.is_closing() or self._refusal is not None:
            return
        body = message.encode("ascii")
        head = b"HTTP/1.1 %d %s\r\n" % (status, _REASONS[status])
        head += b"content-type: text/plain; charset=utf-8\r\ncontent-length: %d\r\nconnection: close\r\n\r\n" % len(
            body
        )
        self._refusal = head + body
        waiting_on_body = self.cycle is not None and self.cycle.more_body and not self.cycle.response_started
        if waiting_on_body or not self._answering():  # the app waits on a body that has not come
            self._send_refusal()

    def _send_refusal(self) -> None:
        assert self._refusal is not None
        self.transport.write(self._refusal)
        self.transport.close()


def guarded_protocol(request_seconds: float = REQUEST_SECONDS, head_bytes: int = HEAD_BYTES) -> type[Any]:
    """The protocol class with these limits (tests choose shorter ones)."""
    return type(
        "GuardedHttpTools",
        (GuardedHttpToolsProtocol,),
        {"request_seconds": request_seconds, "head_bytes": head_bytes},
    )


class Server(uvicorn.Server):
    """uvicorn's server, telling the app (`ttt_db.web.app.create_app`'s `state.stopping`) that it is
    stopping as soon as Ctrl-C or SIGTERM arrives, before it waits for requests to end."""

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        stopping: asyncio.Event | None = getattr(getattr(self.config.app, "state", None), "stopping", None)
        if stopping is not None:
            try:
                asyncio.get_running_loop().call_soon_threadsafe(stopping.set)
            except RuntimeError:  # no loop runs: nothing waits on it
                stopping.set()
        super().handle_exit(sig, frame)

    @property
    def stopped_by(self) -> int | None:
        """The signal that stopped it (Ctrl-C, SIGTERM), or None. uvicorn raises it again once it
        has shut down, but asyncio's own Ctrl-C handler may take that as cancelling a task that
        has already finished, and `run` then returns as if nothing had happened."""
        return self._captured_signals[0] if self._captured_signals else None


def server_config(
    app: Starlette,
    *,
    request_seconds: float = REQUEST_SECONDS,
    head_bytes: int = HEAD_BYTES,
    connections: int = CONNECTIONS,
) -> uvicorn.Config:
    return uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        http=guarded_protocol(request_seconds, head_bytes),
        limit_concurrency=connections,
        timeout_graceful_shutdown=SHUTDOWN_SECONDS,
    )
