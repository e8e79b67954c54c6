"""The page of `ttt-db serve` as a notebook widget (anywidget: JupyterLab, Notebook 7, VS Code,
Colab): play against any AI with hints and the value history, check an AI, replay a search node
by node. It is the page's own markup, stylesheet and script (cli/web/static), run inside the
widget's element with a host of its own: its settings stand for the URL, and the script's API
requests reach the same ASGI app (`create_app`) over the kernel instead of over HTTP.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import MutableMapping
from typing import Any, Final
from urllib.parse import urlencode

from ttt_db.errors import MissingExtraError
from ttt_db.store.database import SolutionDatabase
from ttt_db.web.app import STATIC, create_app

try:
    import anywidget
    import traitlets
except ImportError as missing:  # the notebook extra: pip install 'ttt-db[notebook]'
    raise MissingExtraError("anywidget", "notebook") from missing

_HOST: Final = """
  const root = el.attachShadow({ mode: "open" });
  root.innerHTML = `<style>${CSS}</style><div class="ttt-db-page">${BODY}</div>`;
  const pending = new Map();
  let asked = 0;
  model.on("msg:custom", (answer) => {
    const waiting = pending.get(answer.id);
    if (!waiting) return;
    pending.delete(answer.id);
    if (answer.status < 400) waiting.resolve(answer.body);
    else waiting.reject(new Error(answer.body.error || `HTTP ${answer.status}`));
  });
  const tttDbHost = {
    root,
    query: () => model.get("settings"),
    saveQuery: (query) => { model.set("settings", query); model.save_changes(); },
    request: (path, query, method, body) => new Promise((resolve, reject) => {
      asked += 1;
      pending.set(asked, { resolve, reject });
      model.send({ id: asked, path, query, method, body: body || "" });
    }),
    boot: () => model.get("boot"),
    link: null,
    switchGame: (settings) => { model.set("settings", settings); model.save_changes(); },
    started: () => { el.dataset.ready = "1"; },
  };
"""


def _module() -> str:
    """The widget's ES module: the page's body and stylesheet, the host, then the page's script,
    all inside `render`, so that every widget has its own state."""
    page = (STATIC / "index.html").read_text(encoding="utf-8")
    body = page[page.index("<body>") + len("<body>") : page.index("</body>")]
    body = re.sub(r"<script.*?</script>", "", body, flags=re.S)
    css = (STATIC / "style.css").read_text(encoding="utf-8").replace(":root", ":host")
    script = (STATIC / "app.js").read_text(encoding="utf-8")
    return (
        f"const BODY = {json.dumps(body)};\nconst CSS = {json.dumps(css)};\n"
        "export default { render({ model, el }) {\n" + _HOST + script + "\n} };\n"
    )


class Page(anywidget.AnyWidget):
    """The page over open databases, one per game, the first the default (the caller closes
    them). `view` (play, check or search) and the page's other settings (`ai`, `board`, `moves`,
    `check`, `hints`, ...) are those of its URL (docs/api.md)."""

    _esm = _module()
    boot = traitlets.Dict().tag(sync=True)
    settings = traitlets.Unicode("").tag(sync=True)

    def __init__(self, database: SolutionDatabase, *more: SolutionDatabase, **settings: Any) -> None:
        app = create_app(database, *more)
        super().__init__(
            boot=app.state.games.boot(None),
            settings=urlencode({name: str(value) for name, value in settings.items()}),
        )
        self._app = app
        self.on_msg(self._on_request)

    def _on_request(self, _widget: Any, content: dict[str, Any], _buffers: list[bytes]) -> None:
        asyncio.ensure_future(self._answer(content))

    async def _answer(self, content: dict[str, Any]) -> None:
        status, body = await self.request(
            str(content["path"]), str(content.get("query", "")), content.get("method"), str(content.get("body", ""))
        )
        self.send({"id": content["id"], "status": status, "body": body})

    async def request(self, path: str, query: str = "", method: str | None = None, body: str = "") -> tuple[int, Any]:
        """`/api/{path}?{query}` answered by the app, as the page would be answered over HTTP (`body`
        the request's, as a POST sends it): (status, the JSON document)."""
        sent = body.encode()
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": method or "GET",
            "scheme": "http",
            "path": f"/api/{path}",
            "raw_path": f"/api/{path}".encode(),
            "query_string": query.encode(),
            "root_path": "",
            "headers": [(b"content-length", str(len(sent)).encode())] if sent else [],
            "client": ("notebook", 0),
            "server": ("notebook", 0),
        }
        started: dict[str, Any] = {}
        chunks: list[bytes] = []

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": sent, "more_body": False}

        async def send(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                started.update(message)
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        await self._app(scope, receive, send)
        return int(started["status"]), json.loads(b"".join(chunks) or b"null")
