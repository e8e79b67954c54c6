"""The page in a real headless Chromium (Debian's `chromium`, driven by Playwright): play a full
game against perfect, hint colours against the database, undo, a shared URL, the check view.

The server runs in a thread on a free port of 127.0.0.1 and stops with the module. Without a
Chromium binary the tests skip, saying so; CI installs it (`.ci/run`)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from ttt_db.ais.registry import load_ai
from ttt_db.checks.report import run_checks
from ttt_db.play.mistakes import first_mistake
from ttt_db.store.database import SolutionDatabase

CHROMIUM = os.environ.get("TTT_DB_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium: apt-get install chromium (CI does)")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def second_game(db_3x4k3_path: Path) -> Iterator[SolutionDatabase]:
    """A second game, of 12 cells: its checks run in the background."""
    from ttt_db.store.database import open_database

    with open_database(db_3x4k3_path) as database:
        yield database


@pytest.fixture(scope="module")
def server_url(db: SolutionDatabase, second_game: SolutionDatabase) -> Iterator[str]:
    with serving(db, second_game) as url:
        yield url


@contextmanager
def serving(*databases: SolutionDatabase) -> Iterator[str]:
    """The app over `databases` on a free port of 127.0.0.1, in a thread, until the block ends."""
    import uvicorn

    from ttt_db.web.app import create_app
    from ttt_db.web.server import server_config

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    server = uvicorn.Server(server_config(create_app(*databases)))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}/"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


WAIT_GUARD_MS = 120_000
"""How long a page's wait may last before the test calls it hung (Playwright's default is 30 s): a
guard, not a budget; beside a second worker's 4x4k4 check a server's answer can take that long."""


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1000, "height": 900})
    context.set_default_timeout(WAIT_GUARD_MS)
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    yield opened
    context.close()
    assert not errors, errors


def open_page(page: Any, url: str) -> None:
    """The page at `url`, hints on unless the url says (they are off by default: spoilers)."""
    if "hints=" not in url:
        url += ("&" if "?" in url else "?") + "hints=1"
    page.goto(url)
    page.wait_for_selector("body[data-ready='1']")


def board_text(page: Any) -> str:
    return "".join(
        cell.inner_text().strip()[:1] if cell.inner_text().strip()[:1] in "ox" else "."
        for cell in page.query_selector_all("#board .cell")
    )


def cell(page: Any, index: int) -> Any:
    return page.locator(f"#board [data-cell='{index}']")


def test_a_full_game_against_perfect_ends_in_a_draw(page: Any, server_url: str) -> None:
    open_page(page, server_url)
    for _ in range(5):  # o moves 1, 3, 5, 7, 9; perfect answers
        page.wait_for_function(
            "document.querySelectorAll('#board .cell.best').length > 0 || "
            "document.querySelector('#board').dataset.status !== 'playing'"
        )
        if page.locator("#board").get_attribute("data-status") != "playing":
            break
        before = board_text(page).count(".")
        page.locator("#board .cell.best").first.click()
        page.wait_for_function(
            f"[...document.querySelectorAll('#board .cell.empty')].length <= {before - 2} || "
            "document.querySelector('#board').dataset.status !== 'playing'"
        )
    page.wait_for_function("document.querySelector('#board').dataset.status === 'draw'")
    assert "Game over: a draw" in page.locator("#status").inner_text()
    assert "no mistake so far" in page.locator("#history-caption").inner_text()


def test_hint_colours_match_the_database(page: Any, server_url: str, db: SolutionDatabase) -> None:
    board = "o...x...."
    open_page(page, f"{server_url}?board={board}&as=both")
    page.wait_for_function(
        "document.querySelectorAll('#board .cell.win, #board .cell.draw, #board .cell.loss').length === 7"
    )
    for analysis in db.lookup(board).moves:
        classes = cell(page, analysis.move).get_attribute("class").split()
        assert analysis.value in classes, (analysis, classes)
        label = cell(page, analysis.move).get_attribute("aria-label")
        assert analysis.name in label
    page.locator("#hints").uncheck()
    page.wait_for_function("document.querySelectorAll('#board .cell.draw').length === 0")


def test_undo_takes_back_the_move_and_the_reply(page: Any, server_url: str) -> None:
    open_page(page, server_url)
    cell(page, 4).click()
    page.wait_for_function("document.querySelectorAll('#board .cell.taken').length === 2")
    assert "moves=4%2C" in page.url or "moves=4," in page.url
    page.locator("#undo").click()
    page.wait_for_function("document.querySelectorAll('#board .cell.taken').length === 0")
    assert board_text(page) == "........."


def test_a_shared_url_restores_the_board(page: Any, server_url: str, db: SolutionDatabase) -> None:
    open_page(page, f"{server_url}?moves=4,0,8&as=both")
    assert board_text(page) == "x...o...o"
    expected = db.lookup("x...o...o")
    assert page.locator("#status").inner_text() == f"{expected.to_move} to move: {expected.outcome}."
    assert "1. b2 2. a1 3. c3" in page.locator("#moves-line").inner_text()


def test_the_check_view_lists_ai14s_failures_and_opens_one(page: Any, server_url: str, db: SolutionDatabase) -> None:
    open_page(page, f"{server_url}?view=check")
    page.select_option("#check-ai", "ai14s")
    page.locator("#check-run").click()
    page.wait_for_selector("#failures .failure")
    assert "3,139 of 3,191" in page.locator("#check-summary").inner_text()
    assert "1-10 of 52" in page.locator("#failures-range").inner_text()
    failures = run_checks(load_ai("ai14s"), db, weak=False).strong.failures  # type: ignore[union-attr]
    shown = page.locator("#failures .failure").all_inner_texts()
    told = [text.splitlines()[-1] for text in shown]  # the line after the mini board's marks
    assert told == [f"{failure.board}: {failure.text}" for failure in failures[:10]]
    page.locator("#failures .failure").first.click()
    page.wait_for_selector("#board .cell.chosen")
    assert board_text(page) == "......o.x"
    assert cell(page, 4).get_attribute("class").split().count("chosen") == 1
    marked = [int(c.get_attribute("data-cell")) for c in page.query_selector_all("#board .cell.marked-best")]
    assert marked == [0, 2, 3]


def test_the_statistics_view_draws_the_librarys_chart_and_table(
    page: Any, server_url: str, db: SolutionDatabase
) -> None:
    from ttt_db.outputs.stats import solution_stats

    stats = solution_stats(db)
    open_page(page, f"{server_url}?moves=4")
    page.locator("#tab-stats").click()
    page.wait_for_selector("#stats-remoteness:not([hidden]) tbody tr")
    assert "view=stats" in page.url
    titles = page.locator("#stats-chart svg title").all_text_contents()
    six = stats.depths[6]
    assert len(titles) == 3 * len(stats.depths) and f"depth 6: {six.positions['win']:,} win for {six.to_move}" in titles
    rows = [row.split("\t") for row in page.locator("#stats-remoteness tbody tr").all_inner_texts()]
    shown = [(value, int(plies), int(positions.replace(",", ""))) for value, plies, positions, _ in rows]
    assert sorted(shown) == [
        (value, remoteness, positions) for (value, remoteness), (positions, _) in sorted(stats.by_remoteness.items())
    ]
    assert [value for value, _, _ in shown] == sorted((v for v, _, _ in shown), key=["win", "draw", "loss"].index)
    summary = page.locator("#stats-summary").inner_text()
    assert f"{stats.decision:,} ({100 * stats.decision / stats.in_play:.1f}% of those in play)" in summary
    assert stats.longest_win is not None and f"from {stats.longest_win.board}" in summary
    page.locator(f"#stats-summary button[data-board='{stats.longest_win.board}']").click()
    page.wait_for_selector("#view-play:not([hidden])")
    assert board_text(page) == stats.longest_win.board  # opened on the board, to be played out
    page.locator("#tab-stats").click()
    page.set_viewport_size({"width": 390, "height": 844})
    box = page.locator("#stats-chart svg").bounding_box()
    assert box is not None and box["x"] + box["width"] <= 390  # the chart scales down to a phone


def test_a_search_animates_its_trace(page: Any, server_url: str) -> None:
    open_page(page, f"{server_url}?view=search&moves=4,0&as=both")
    page.locator("#search-run").click()
    page.wait_for_selector("#player:not([hidden])")
    for _ in range(5):
        page.locator("#trace-step").click()
    assert page.locator("#tree circle").count() >= 3
    assert "step 5 of" in page.locator("#trace-progress").inner_text()
    assert "agrees" in page.locator("#search-status").inner_text()


def test_keyboard_play(page: Any, server_url: str) -> None:
    open_page(page, f"{server_url}?as=both")
    cell(page, 0).focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    page.wait_for_function("document.querySelectorAll('#board .cell.taken').length === 1")
    assert board_text(page) == "....o...."


def test_the_value_history_marks_the_first_mistake(page: Any, server_url: str, db: SolutionDatabase) -> None:
    assert db.lookup("....o....").value == "draw" and db.lookup(".x..o....").score == 1  # x's edge reply loses
    open_page(page, f"{server_url}?moves=4,1&as=both")
    page.wait_for_selector("#history-chart rect.mistake")
    mistake = first_mistake([db.lookup("........."), db.lookup("....o....")], [4, 1])
    assert mistake is not None and mistake.text.startswith("move 2: x could still get a draw; it played 1 (b1)")
    assert page.locator("#history-caption").inner_text() == f"First mistake, {mistake.text}."
    assert page.locator("#history-chart circle.position").count() == 3
    titles = page.locator("#history-chart circle.position title").all_text_contents()
    assert titles == [
        f"{when}: {db.lookup(board).outcome}"
        for when, board in (
            ("start", "........."),
            ("after move 1 (b2)", "....o...."),
            ("after move 2 (b1)", ".x..o...."),
        )
    ]
    ring = page.locator("#history-chart rect.mistake")
    top, height = float(ring.get_attribute("y")), float(ring.get_attribute("height"))
    ringed = [
        label.text_content()
        for label in page.query_selector_all("#history-chart text.move")
        if top <= float(label.get_attribute("y")) <= top + height
    ]
    assert ringed == ["2. b1"]  # the row the caption names


def test_a_game_from_an_x_first_board_is_played_to_its_end(page: Any, server_url: str, db: SolutionDatabase) -> None:
    """`ox..x....`: x moved first, o to move; its only drawing move is b3 (7). The page asks the
    API who moves and what each move makes of the board, so it follows x-first games to the end."""
    start = "ox..x...."
    open_page(page, f"{server_url}?board={start}&as=both")
    assert "o to move" in page.locator("#status").inner_text()
    assert page.locator("#human option[value='x']").inner_text() == "x (moves first)"
    played: list[int] = []
    board = start
    while True:
        expected = db.lookup(board, first="x")
        if expected.status != "playing":
            break
        move = expected.best_moves[0]
        empty_before = board_text(page).count(".")
        cell(page, move).click()
        page.wait_for_function(f"document.querySelectorAll('#board .cell.empty').length === {empty_before - 1}")
        played.append(move)
        board = board[:move] + expected.to_move + board[move + 1 :]  # type: ignore[operator]
        assert board_text(page) == board
    assert played[0] == 7
    page.wait_for_function("document.querySelector('#board').dataset.status === 'draw'")
    assert "Game over: a draw" in page.locator("#status").inner_text()
    assert "no mistake so far" in page.locator("#history-caption").inner_text()
    assert "first=x" in page.url
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    assert board_text(page) == board  # the shared link replays the x-first game


@pytest.mark.parametrize(
    ("query", "message", "board"),
    [
        ("moves=4,4&as=both", "move 2 (b2) is not a legal move there", "....o...."),
        ("moves=9&as=both", "move 1 (9) is not a legal move there", "........."),
        ("as=z", "?as=z is not a side", "........."),
        ("view=nope", "?view=nope is not a view", "........."),
    ],
)
def test_a_bad_url_parameter_says_so_and_the_page_stays_usable(
    page: Any, server_url: str, query: str, message: str, board: str
) -> None:
    open_page(page, f"{server_url}?{query}")
    page.wait_for_function(
        f"document.querySelector('#board .cell.empty') && {board.count('.')} === "
        "document.querySelectorAll('#board .cell.empty').length"
    )
    assert message in page.locator("#notice").inner_text()
    assert board_text(page) == board
    assert page.locator("#view-play").is_visible()


def test_the_winning_line_coordinates_and_rules(page: Any, server_url: str, db: SolutionDatabase) -> None:
    open_page(page, f"{server_url}?moves=4,0,1,2,7&as=both")  # o takes the middle column
    page.wait_for_function("document.querySelector('#board').dataset.status === 'o'")
    winning = sorted(int(c.get_attribute("data-cell")) for c in page.query_selector_all("#board .cell.winning"))
    assert winning == [1, 4, 7]
    assert "on the winning line" in cell(page, 4).get_attribute("aria-label")
    assert page.locator("#column-names").inner_text().split() == ["a", "b", "c"]
    assert page.locator("#row-names").inner_text().split() == ["1", "2", "3"]
    page.locator("#rules summary").click()
    assert "3 marks in a row" in page.locator("#rules-text").inner_text()


def test_undo_redo_restart_and_swap(page: Any, server_url: str) -> None:
    open_page(page, f"{server_url}?as=both")
    for move in (4, 0, 8):
        before = board_text(page).count(".")
        cell(page, move).click()
        page.wait_for_function(f"document.querySelectorAll('#board .cell.empty').length === {before - 1}")
    page.locator("#undo").click()
    page.wait_for_function("document.querySelectorAll('#board .cell.taken').length === 2")
    assert board_text(page) == "x...o...."
    page.locator("#redo").click()
    page.wait_for_function("document.querySelectorAll('#board .cell.taken').length === 3")
    assert board_text(page) == "x...o...o" and page.locator("#redo").is_disabled()
    page.keyboard.press("Control+z")
    page.wait_for_function("document.querySelectorAll('#board .cell.taken').length === 2")
    cell(page, 2).click()  # a new move forgets what could be redone
    page.wait_for_function("document.querySelectorAll('#board .cell.taken').length === 3")
    assert page.locator("#redo").is_disabled()
    page.locator("#restart").click()
    page.wait_for_function("document.querySelectorAll('#board .cell.taken').length === 0")
    page.select_option("#human", "o")
    page.locator("#swap").click()
    page.wait_for_function("document.querySelectorAll('#board .cell.taken').length === 1")  # perfect opens as o
    assert page.locator("#human").input_value() == "x" and "as=x" in page.url


def test_copy_link_copies_the_position(browser: Any, server_url: str) -> None:
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    opened = context.new_page()
    open_page(opened, f"{server_url}?moves=4,0&as=both")
    opened.locator("#copy-link").click()
    opened.wait_for_function("document.querySelector('#copy-status').textContent !== ''")
    copied = opened.evaluate("navigator.clipboard.readText()")
    assert "moves=4%2C0" in copied or "moves=4,0" in copied
    context.close()


def test_every_served_game_is_chosen_on_the_page(page: Any, server_url: str, second_game: SolutionDatabase) -> None:
    open_page(page, server_url)
    choices = [o.get_attribute("value") for o in page.query_selector_all("#game-choice option")]
    assert choices == ["3x3k3", "3x4k3"]
    page.select_option("#game-choice", "3x4k3")
    page.wait_for_url("**game=3x4k3**")
    page.wait_for_selector("body[data-ready='1']")
    assert page.locator("#board .cell").count() == 12
    assert page.locator("#row-names").inner_text().split() == ["1", "2", "3"]
    assert page.locator("#column-names").inner_text().split() == ["a", "b", "c", "d"]
    empty = second_game.lookup("............")
    assert f"{empty.value}s in {empty.remoteness}" in page.locator("#status").inner_text()
    cell(page, 5).click()  # the AI answers on the chosen game
    page.wait_for_function("document.querySelectorAll('#board .cell.taken').length === 2")
    assert "game=3x4k3" in page.url


def test_a_check_of_a_12_cell_game_shows_its_progress_and_result(page: Any, server_url: str) -> None:
    open_page(page, f"{server_url}?game=3x4k3&view=check")
    page.select_option("#check-ai", "ai2s")
    statuses: list[str] = []
    page.expose_function("noteStatus", lambda text: statuses.append(text))
    page.evaluate(
        "new MutationObserver(() => noteStatus(document.querySelector('#check-status').textContent))"
        ".observe(document.querySelector('#check-status'), {childList: true, characterData: true, subtree: true})"
    )
    page.locator("#check-run").click()
    page.wait_for_function("document.querySelector('#check-status').textContent.startsWith('ai2s:')", timeout=60_000)
    assert any(status.startswith("Checking ai2s on 3x4k3: ") for status in statuses), statuses
    assert page.locator("#check-summary li").count() == 4  # weak as o and x, strong, the failures by kind
    assert "failing positions: " in page.locator("#check-summary").inner_text()


def test_a_game_not_served_is_named_and_the_default_shown(page: Any, server_url: str) -> None:
    open_page(page, f"{server_url}?game=4x4k4")
    assert "?game=4x4k4 is not served here (3x3k3, 3x4k3): showing 3x3k3" in page.locator("#notice").inner_text()
    assert page.locator("#board .cell").count() == 9


def test_the_ai_of_a_link_is_checked_before_the_first_move(page: Any, server_url: str) -> None:
    open_page(page, f"{server_url}?ai=nobody")
    assert "?ai=nobody: unknown AI 'nobody'" in page.locator("#notice").inner_text()
    assert page.locator("#ai").input_value() == "perfect-shortest" and "ai=" not in page.url
    open_page(page, f"{server_url}?ai=dls@2")  # a setting the list does not show
    assert page.locator("#ai").input_value() == "dls@2" and page.locator("#notice").is_hidden()


def test_play_it_out_plays_the_line_to_the_end(page: Any, server_url: str, db: SolutionDatabase) -> None:
    from ttt_db.game.board import Board
    from ttt_db.play.line import perfect_line

    open_page(page, f"{server_url}?moves=4,1&as=both")
    page.locator("#play-out").click()
    line = perfect_line(db, Board.parse(".x..o...."), shortest=True)
    names = [db.game.move_name(move) for move in (4, 1, *line.moves)]
    expected = " ".join(f"{number}. {name}" for number, name in enumerate(names, start=1))
    page.wait_for_function(f"document.querySelector('#moves-line').innerText.includes({expected!r})")
    assert page.locator("#board .cell.empty").count() == line.end.cells.count(".")


def test_a_check_shows_how_good_the_ai_is_exactly(page: Any, server_url: str, db: SolutionDatabase) -> None:
    from ttt_db.ais.registry import load_ai
    from ttt_db.checks.measures import measure_policy

    measures = measure_policy(load_ai("ai2s", lambda: db), db, costliest=3)
    open_page(page, f"{server_url}?view=check&check=ai2s")
    page.wait_for_selector("#check-score:not([hidden])")
    rows = [row.inner_text().split("\t") for row in page.query_selector_all("#score-table tr")][1:]
    o_perfect = measures.seats["o"].against["perfect"]
    assert rows[0][:5] == [
        "as o",
        "perfect play",
        "0.00%",
        f"{100 * float(o_perfect.draw):.2f}%",
        f"{100 * float(o_perfect.loss):.2f}%",
    ]
    assert len(rows) == 6
    said = page.locator("#score-exploitability").inner_text()
    assert said.startswith(
        f"Exploitability {float(measures.exploitability):.6g} (NashConv {float(measures.nash_conv):.6g}"
    )
    costly = page.locator("#score-costliest li")
    assert costly.count() == 6 and costly.first.locator(".mini-cell.chosen").count() > 0


def test_the_pages_figures_round_as_the_cli_and_the_notebook_round_them(
    page: Any, server_url: str, db: SolutionDatabase
) -> None:
    """ai1s as o wins 25/32 of its games against uniform random play: 78.125%, a tie that Python
    writes 78.12% and JavaScript's toFixed 78.13%."""
    from ttt_db.checks.measures import measure_policy

    measures = measure_policy(load_ai("ai1s", lambda: db), db, costliest=3)
    open_page(page, f"{server_url}?view=check&check=ai1s")
    page.wait_for_selector("#check-score:not([hidden])")
    rows = [row.inner_text().split("\t")[2:] for row in page.query_selector_all("#score-table tr")][1:]
    expected = [
        [*(f"{100 * float(share):.2f}%" for share in (found.win, found.draw, found.loss)), f"{float(found.score):.4f}"]
        for seat in ("o", "x")
        for found in measures.seats[seat].against.values()
    ]
    ties = [
        share
        for seat in ("o", "x")
        for found in measures.seats[seat].against.values()
        for share in (found.win, found.draw, found.loss)
        if (Fraction(share) * 10_000).denominator == 2
    ]
    assert ties  # a share that lies halfway between two texts: where the two roundings part
    assert rows == expected


def test_a_policy_file_chosen_on_the_page_is_scored(
    page: Any, server_url: str, db: SolutionDatabase, tmp_path: Path
) -> None:
    """Score your own table: the file's text sent (POST /api/score), its figures drawn as a built-in
    AI's are, a file that cannot be used answered in words."""
    from ttt_db.ais.tabular import policy_from_document
    from ttt_db.checks.measures import measure_policy

    shots = Path(os.environ.get("TTT_DB_SCREENSHOTS", tmp_path))
    table = {"policy": {"o........": [4], "o...x...x": [2], "x.o......": {"b2": "1/3", "1": "2/3"}}}
    (tmp_path / "q_table.json").write_text(json.dumps(table))
    measures = measure_policy(policy_from_document(table, db.game, name="q_table.json"), db, costliest=3)
    open_page(page, f"{server_url}?view=check")
    page.set_input_files("#score-file", str(tmp_path / "q_table.json"))
    page.wait_for_selector("#check-score:not([hidden])")
    assert page.locator("#check-status").inner_text().startswith("q_table.json, a tabular policy")
    rows = [row.inner_text().split("\t") for row in page.query_selector_all("#score-table tr")][1:]
    x_random = measures.seats["x"].against["random"]
    assert rows[5][:5] == [
        "as x",
        "uniform random",
        f"{100 * float(x_random.win):.2f}%",
        f"{100 * float(x_random.draw):.2f}%",
        f"{100 * float(x_random.loss):.2f}%",
    ]
    assert (
        page.locator("#score-exploitability")
        .inner_text()
        .startswith(f"Exploitability {float(measures.exploitability):.6g} ")
    )
    for width, height in ((1280, 800), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.screenshot(path=str(shots / f"check-policy-file-{width}.png"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # the file input within a phone
    (tmp_path / "bad.json").write_text(json.dumps({"x.o......": {"0": 1}}))
    page.set_input_files("#score-file", str(tmp_path / "bad.json"))
    page.wait_for_function("document.querySelector('#check-status').textContent.startsWith('Cannot score bad.json')")
    assert "the entry for board 'x.o......'" in page.locator("#check-status").inner_text()
    assert page.locator("#check-score").is_hidden()


def test_check_failures_and_the_decisive_mistake_are_drawn_as_boards(
    page: Any, server_url: str, db: SolutionDatabase
) -> None:
    told = run_checks(load_ai("ai1s"), db, strong=False).mistakes  # the library's words, shown unchanged
    open_page(page, f"{server_url}?view=check")
    page.select_option("#check-ai", "ai1s")
    page.locator("#check-run").click()
    page.wait_for_function("document.querySelector('#check-status').textContent.startsWith('ai1s')")
    first = page.locator("#failures .failure").first
    assert first.locator(".mini-cell").count() == 9 and first.locator(".mini-cell.chosen").count() == 1
    assert page.locator("#check-summary .mini-board").count() == 4  # per side: the mistake, the lost game
    summary = page.locator("#check-summary").inner_text()
    assert len(told) == 2 and all(f"Its decisive mistake, {mistake.text}" in summary for mistake in told.values())


def test_a_search_tree_zooms_collapses_and_follows(page: Any, server_url: str) -> None:
    open_page(page, f"{server_url}?view=search")
    page.select_option("#search-algorithm", "alphabeta-shortest")  # 1,242 nodes from the empty board
    page.locator("#search-run").click()
    page.wait_for_selector("#player:not([hidden])")
    assert "searched: ........." in page.locator("#searched-board").inner_text()
    full = page.locator("#tree").get_attribute("viewBox")
    page.locator("#tree-zoom-in").click()
    page.locator("#tree-zoom-in").click()
    zoomed = [float(v) for v in page.locator("#tree").get_attribute("viewBox").split()]
    assert zoomed[2] == float(full.split()[2]) / 4
    per_step = page.evaluate(
        "() => { const t = performance.now(); let n = 0; while (stepTrace()) n++; "
        "return [n, (performance.now() - t) / n]; }"
    )
    assert per_step[0] == 2 * page.locator("#tree circle").count()  # every node entered and left
    shown = [float(v) for v in page.locator("#tree").get_attribute("viewBox").split()]
    assert shown[2] == zoomed[2]  # still zoomed, moved to follow the search
    root = page.locator("#tree circle").first
    before = page.locator("#tree circle:not(.collapsed)").count()
    root.dispatch_event("dblclick")
    assert page.locator("#tree circle:not(.collapsed)").count() == 1 < before  # only the root left
    assert "Expand this node" in page.locator("#tree-collapse").inner_text()
    page.locator("#tree-collapse").click()
    assert page.locator("#tree circle:not(.collapsed)").count() == before
    page.locator("#tree-fit").click()
    assert page.locator("#tree").get_attribute("viewBox") == full


def test_the_value_history_draws_every_move_each_player_had(page: Any, server_url: str, db: SolutionDatabase) -> None:
    open_page(page, f"{server_url}?moves=4,0,1,2,7&as=both")
    page.wait_for_function("document.querySelectorAll('#history-chart circle.position').length === 6")
    boards = ["........."]
    for move in (4, 0, 1, 2, 7):
        board = boards[-1]
        mark = "o" if board.count("o") == board.count("x") else "x"
        boards.append(board[:move] + mark + board[move + 1 :])
    legal = sum(len(db.lookup(board).moves) for board in boards)
    counts = [int(c.get_attribute("data-count")) for c in page.query_selector_all("#history-chart circle.next")]
    assert sum(counts) == legal and max(counts) > 1  # moves that lead to one place are one dot and a number
    assert page.locator("#history-chart text.count").count() == sum(1 for n in counts if n > 1)
    assert page.locator("#history-chart rect.mistake").count() == 1  # x's c1 at move 4
    labels = page.query_selector_all("#history-chart text.move")
    assert [label.text_content() for label in labels] == ["1. b2", "2. a1", "3. b1", "4. c1", "5. b3"]
    sides = [(label.get_attribute("text-anchor"), label.get_attribute("class").split()[-1]) for label in labels]
    assert sides == [("start", "o"), ("end", "x"), ("start", "o"), ("end", "x"), ("start", "o")]


@pytest.fixture(scope="module")
def game_4x4k4(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SolutionDatabase]:
    """A 16-cell game, where a check by a searching AI takes minutes."""
    from ttt_db.build import build_database
    from ttt_db.game.definition import Game
    from ttt_db.store.database import open_database

    path = tmp_path_factory.mktemp("4x4k4") / "4x4k4.sqlite"
    build_database(path, game=Game.parse("4x4k4"))
    with open_database(path) as database:
        yield database


def test_a_long_check_shows_its_total_and_time_left_and_can_be_cancelled(
    page: Any, game_4x4k4: SolutionDatabase, tmp_path: Path
) -> None:
    shots = Path(os.environ.get("TTT_DB_SCREENSHOTS", tmp_path))
    with serving(game_4x4k4) as url:
        open_page(page, f"{url}?view=check")
        page.select_option("#check-ai", "dls@3")  # minutes of searching on 4x4k4
        page.locator("#check-run").click()
        page.wait_for_function(  # a guard against a hang, not a budget: a busy host starts the check slowly
            "document.querySelector('#check-status').textContent.includes(' left')", timeout=300_000
        )
        status = page.locator("#check-status").inner_text()
        total = game_4x4k4.meta()["figures"]["decision_canonical"]  # dls@3 is symmetric: once per class
        assert "Checking dls@3 on 4x4k4: strong check, " in status and f" of {total:,} (" in status
        assert page.locator("#check-cancel").is_visible()
        for width, height in ((1280, 800), (390, 844)):
            page.set_viewport_size({"width": width, "height": height})
            page.screenshot(path=str(shots / f"check-running-{width}.png"))
        page.locator("#check-cancel").click()
        page.wait_for_function("document.querySelector('#check-status').textContent.includes('was cancelled')")
        assert page.locator("#check-cancel").is_hidden()
        time.sleep(0.7)  # a poll under way when the cancel came says nothing afterwards
        assert page.locator("#check-status").inner_text() == "The check of dls@3 was cancelled."
        page.select_option("#check-ai", "perfect")  # the server is free for another check at once
        page.locator("#check-run").click()
        page.wait_for_function(
            "document.querySelector('#check-status').textContent.startsWith('Checking perfect on 4x4k4: ')"
        )
        (tmp_path / "q.json").write_text('{"o...............": [5]}')
        page.set_input_files("#score-file", str(tmp_path / "q.json"))  # a file chosen while a check runs
        page.wait_for_function("document.querySelector('#check-status').textContent.startsWith('Cannot score q.json')")
        assert "measured from the command line" in page.locator("#check-status").inner_text()
        assert page.locator("#check-cancel").is_hidden()
        page.select_option("#check-ai", "dls@3")  # the check it left was cancelled: another starts at once
        page.locator("#check-run").click()
        page.wait_for_function("document.querySelector('#check-status').textContent.startsWith('Checking dls@3')")
        page.locator("#check-cancel").click()
        page.wait_for_function("document.querySelector('#check-status').textContent.includes('was cancelled')")


def test_one_colour_language_on_an_x_first_board(page: Any, server_url: str, tmp_path: Path) -> None:
    """The chart's dots say what the board's hints say, for the same player, in the same colours;
    the sides are named in their marks' colours, the first player's on the left, x here."""
    shots = Path(os.environ.get("TTT_DB_SCREENSHOTS", tmp_path))
    open_page(page, f"{server_url}?board=ox..x....&as=both")
    page.wait_for_selector("#history-chart circle.position")
    header = page.locator("#history-chart text.side").first
    assert header.text_content() == "\u2190 x wins" and "x" in header.get_attribute("class").split()
    by_board: dict[str, int] = {}
    for button in page.query_selector_all("#board .cell.empty"):
        value = next(c for c in button.get_attribute("class").split() if c in ("win", "draw", "loss"))
        by_board[value] = by_board.get(value, 0) + 1
    by_chart: dict[str, int] = {}
    for dot in page.query_selector_all("#history-chart circle.next"):
        value = next(c for c in dot.get_attribute("class").split() if c in ("win", "draw", "loss"))
        by_chart[value] = by_chart.get(value, 0) + int(dot.get_attribute("data-count"))
    assert by_chart == by_board == {"draw": 1, "loss": 5}
    assert page.locator("#history-chart circle.position.draw").count() == 1  # o to move: a draw for o
    colours = page.evaluate(
        "() => [...document.querySelectorAll('#board .cell.loss, #history-chart circle.next.loss')]"
        ".map((e) => getComputedStyle(e)[e.tagName === 'circle' ? 'fill' : 'borderColor'])"
    )
    assert len(set(colours)) == 1  # one red for a loss, on the board and in the chart
    for width, height in ((1280, 800), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.screenshot(path=str(shots / f"play-x-first-{width}.png"), full_page=True)
    open_page(page, f"{server_url}?moves=4,0,1,2,7,6&as=both")
    page.wait_for_selector("#history-chart rect.mistake")
    for width, height in ((1280, 800), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.screenshot(path=str(shots / f"play-history-{width}.png"), full_page=True)


def test_hints_off_hide_every_value(page: Any, server_url: str) -> None:
    """Issue 59: Play opened with hints on, every cell's value a spoiler; they are off until asked."""
    page.goto(f"{server_url}?moves=4&as=both")
    page.wait_for_selector("body[data-ready='1']")
    assert page.locator("#status").inner_text() == "x to move."
    assert not page.locator("#hints").is_checked()
    assert page.locator("#history").is_hidden() and page.locator("#legend").is_hidden()
    assert page.locator("#board .cell.win, #board .cell.draw, #board .cell.loss").count() == 0
    page.locator("#hints").check()
    page.wait_for_selector("#history-chart circle.position")
    assert "draw" in page.locator("#status").inner_text() and "hints=1" in page.url
    open_page(page, f"{server_url}?moves=4&as=both&hints=0")  # a link from before: still off
    assert not page.locator("#hints").is_checked()


def test_a_finished_position_from_a_link_names_no_one_as_its_winner(page: Any, server_url: str) -> None:
    open_page(page, f"{server_url}?board=ooo.xx...")
    assert page.locator("#status").inner_text() == "This position is over: o has won."


def test_a_refused_search_leaves_no_earlier_figures(page: Any, server_url: str) -> None:
    open_page(page, f"{server_url}?view=search&moves=4,0&as=both")
    page.locator("#search-run").click()
    page.wait_for_selector("#player:not([hidden])")
    assert page.locator("#search-stats dd").count() > 0
    page.locator("#tab-play").click()
    page.locator("#undo").click()
    page.locator("#undo").click()
    page.locator("#tab-search").click()
    page.select_option("#search-algorithm", "minimax")  # traced from the empty board: past the web's limit
    page.locator("#search-run").click()
    page.wait_for_function("document.querySelector('#search-status').textContent.startsWith('Cannot search')")
    assert page.locator("#search-stats dd").count() == 0 and page.locator("#player").is_hidden()


def test_a_full_search_is_no_opponent_on_4x4(page: Any, game_4x4k4: SolutionDatabase) -> None:
    with serving(game_4x4k4) as url:
        open_page(page, f"{url}?ai=minimax-tt")
        assert page.locator("#ai option[value='minimax-tt']").is_disabled()
        assert "too slow for this game" in page.locator("#ai option[value='minimax-tt']").inner_text()
        assert page.locator("#ai").input_value() == "perfect-shortest"
        assert "?ai=minimax-tt: minimax-tt would search up to" in page.locator("#notice").inner_text()


def test_a_4x4_game_fits_a_phone(page: Any, game_4x4k4: SolutionDatabase) -> None:
    """At 390 px the 4x4 board, the opponent list (with its long 'too slow' entries) and the chart
    stay within the screen: nothing scrolls sideways."""
    with serving(game_4x4k4) as url:
        page.set_viewport_size({"width": 390, "height": 844})
        open_page(page, f"{url}?moves=5,0&as=both")
        page.wait_for_selector("#history-chart circle.position")
        assert page.evaluate("document.documentElement.scrollWidth") == 390


def test_the_page_offers_first_what_runs_on_4x4(page: Any, game_4x4k4: SolutionDatabase) -> None:
    """On 4x4k4 the check offered first is an AI that plays the game (not ai14s, a 3x3 rule set),
    and the search offered first runs from the empty board (not alphabeta, past the web's limit)."""
    with serving(game_4x4k4) as url:
        open_page(page, f"{url}?view=search")
        checked = page.locator("#check-ai").input_value()
        assert checked != "ai14s" and not page.locator(f"#check-ai option[value='{checked}']").is_disabled()
        assert page.locator("#search-algorithm").input_value() == "abdls@3"
        page.locator("#search-run").click()
        page.wait_for_selector("#player:not([hidden])")
        assert page.locator("#search-stats dd").count() > 0
