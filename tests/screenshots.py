"""Save screenshots of the page's main views at 1280x800 and 390x844, to look at before a change
to the page lands:

    python tests/screenshots.py [--out screenshots] [--game 4x4k3]

It builds a throwaway 3x3 database (and the game's, when given), serves it on a free port of
127.0.0.1 and drives Debian's headless Chromium. The folder is git-ignored.
"""

from __future__ import annotations

import argparse
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

VIEWPORTS = {"desktop": (1280, 800), "phone": (390, 844), "narrow": (360, 740)}
VIEWS = {
    "play": "?moves=4,0,8&as=both",
    "hints": "?moves=4,0,8&as=both&hints=1",
    "lost-hints": "?board=ox.o.....&as=both&hints=1",
    "won": "?moves=4,0,1,2,7&as=both",
    "x-first": "?board=ox..x....&moves=7&as=both",
    "bad-url": "?moves=4,4&as=z",
    "check": "?view=check&check=ai14s",
    "search": "?view=search&moves=4,0&as=both",
    "stats": "?view=stats",
}
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]


def serve(database_path: Path) -> tuple[str, object]:
    import uvicorn

    from ttt_db.store.database import open_database
    from ttt_db.web.app import create_app
    from ttt_db.web.server import server_config

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    server = uvicorn.Server(server_config(create_app(open_database(database_path))))
    threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True).start()
    while not server.started:
        time.sleep(0.02)
    return f"http://127.0.0.1:{listener.getsockname()[1]}/", server


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="screenshots", help="folder for the PNG files")
    parser.add_argument("--game", default=None, help="also shoot the play view of this game (e.g. 4x4k3)")
    options = parser.parse_args()
    from playwright.sync_api import sync_playwright

    from ttt_db.build import build_database
    from ttt_db.ranked.slots import game_from_name

    out = Path(options.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        targets = [(Path(scratch) / "3x3.sqlite", None, VIEWS)]
        if options.game:
            game = game_from_name(options.game)
            targets.append((Path(scratch) / f"{game.name}.sqlite", game, {"play": "?as=both&moves=5"}))
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            for path, game, views in targets:
                build_database(path, game=game) if game else build_database(path)
                url, server = serve(path)
                for viewport, (width, height) in VIEWPORTS.items():
                    page = browser.new_page(viewport={"width": width, "height": height})
                    for name, query in views.items():
                        page.goto(url + query)
                        page.wait_for_selector("body[data-ready='1']")
                        if name == "search":
                            page.locator("#search-run").click()
                            page.wait_for_selector("#player:not([hidden])")
                            page.locator("#trace-step").click()
                            for _ in range(3):
                                page.locator("#tree-zoom-in").click()
                            page.evaluate("() => { for (let i = 0; i < 400; i++) stepTrace(); }")
                        page.wait_for_timeout(700)  # the AI's reply and the check's answer
                        prefix = f"{game.name}-" if game else ""
                        page.screenshot(path=str(out / f"{prefix}{name}-{viewport}.png"), full_page=True)
                    page.close()
                server.should_exit = True  # type: ignore[attr-defined]
            browser.close()
    print(f"screenshots in {out}/", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
