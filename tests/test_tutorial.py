"""docs/tutorial.ipynb runs top to bottom (nbclient, a real kernel), and its widget plays a game and
replays a search in JupyterLab in Chromium, with screenshots saved to look at (skipped, saying
why, without nbclient, JupyterLab, anywidget or Chromium; CI has them)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import reference

from ttt_db.ais.rule_based import ai14s as ai14s_rules
from ttt_db.store import published

ROOT = Path(__file__).resolve().parents[1]
TUTORIAL = ROOT / "docs" / "tutorial.ipynb"
GUARD_MS = 300_000
"""How long a step of the JupyterLab test may wait before it is called hung: a guard, not a budget
(a kernel starting beside a suite's two workers, or numba compiling there, takes minutes)."""
CHROMIUM = os.environ.get("TTT_DB_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


def _outputs(cell: Any) -> dict[str, Any]:
    bundle: dict[str, Any] = {}
    for output in cell.get("outputs", []):
        bundle.update(output.get("data", {}))
    return bundle


def test_the_tutorial_runs_top_to_bottom(db_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    nbformat = pytest.importorskip("nbformat", reason="nbformat is not installed: pip install -e '.[test]'")
    nbclient = pytest.importorskip("nbclient", reason="nbclient is not installed: pip install -e '.[test]'")
    pytest.importorskip("anywidget", reason="anywidget is not installed: pip install -e '.[notebook]'")
    monkeypatch.setenv("TTT_DB", str(db_path))  # the kernel inherits it: the session's database
    notebook = nbformat.read(TUTORIAL, as_version=4)
    assert all(not cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code")  # kept clean
    # run from a folder of the user's, outside the repository: only the installed package is there (issue 59)
    nbclient.NotebookClient(
        notebook, timeout=GUARD_MS // 1000, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    shown = [_outputs(cell) for cell in code]
    by_source = {cell.source: bundle for cell, bundle in zip(code, shown, strict=True)}
    assert by_source['Board.parse("ox..x...o")']["image/svg+xml"].startswith("<svg")
    assert "o to move" in by_source['db.lookup("ox..x...o")']["text/html"]
    ai14s = by_source['run_checks(load_ai("ai14s"), db)']["text/html"]
    strong = reference.strong_check_of(ai14s_rules)
    assert "<b>not solved</b>" in ai14s and f"{strong.correct:,} of {strong.total:,}" in ai14s
    _, calls = reference.seed_alpha_beta(".........")
    assert f"<td>{calls:,}</td>" in by_source['search_board(db, "alphabeta", Board.parse("........."))']["text/html"]
    minimax = 'search_board(db, "minimax", Board.parse(".........")).report.counts.nodes'
    assert by_source[minimax]["text/plain"] == str(sum(published.TREE_NODES_BY_DEPTH))
    widgets = [bundle for bundle in shown if "application/vnd.jupyter.widget-view+json" in bundle]
    assert len(widgets) == 2


def _free_port() -> int:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        return int(listener.getsockname()[1])


@pytest.fixture
def jupyterlab(db_path: Path, tmp_path: Path) -> Iterator[str]:
    pytest.importorskip("jupyterlab", reason="JupyterLab is not installed: pip install -e '.[test]'")
    pytest.importorskip("anywidget", reason="anywidget is not installed: pip install -e '.[notebook]'")
    if CHROMIUM is None:
        pytest.skip("no Chromium: apt-get install chromium (CI does)")
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    shutil.copy(TUTORIAL, notebooks / "tutorial.ipynb")
    port = _free_port()
    command = [sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}", "--ip=127.0.0.1"]
    command += ["--ServerApp.token=", "--ServerApp.password=", f"--ServerApp.root_dir={notebooks}"]
    command += ["--allow-root"] if os.geteuid() == 0 else []
    settings = tmp_path / "jupyter-settings"  # a fresh JupyterLab, whatever the machine's has
    # every cell rendered, not only those near the view (JupyterLab 4 renders a long notebook's
    # cells as they scroll in: a widget below the fold may never appear on a slow machine); the
    # notebook's kernel started without asking (on a loaded machine JupyterLab asks in a dialog,
    # Select Kernel, that Escape does not close)
    tracker = settings / "lab" / "user-settings" / "@jupyterlab" / "notebook-extension"
    tracker.mkdir(parents=True)
    (tracker / "tracker.jupyterlab-settings").write_text('{"windowingMode": "none", "autoStartDefaultKernel": true}')
    environment = {**os.environ, "TTT_DB": str(db_path), "PYTHONPATH": str(ROOT), "JUPYTER_CONFIG_DIR": str(settings)}
    server = subprocess.Popen(command, env=environment, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + GUARD_MS / 1000  # a guard: JupyterLab starts slowly beside a suite
        while True:
            try:
                urllib.request.urlopen(url + "api/status", timeout=2)
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError("JupyterLab did not start") from None
                time.sleep(0.3)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


RUN_STATE = """() => {
    const prompts = [...document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputPrompt')]
        .map((p) => p.textContent);
    const run = prompts.filter((p) => /\\[\\d+\\]/.test(p)).length;
    if (prompts.some((p) => p.includes('[*]'))) return 'running';
    if (run === prompts.length) return 'done';
    return run ? 'stopped' : '';
}"""
"""Where a run of the notebook is, from its code cells' prompts ([*] running or waiting, [n] run):
'running', 'done' (every cell run), 'stopped' (some run, none running or waiting, others not run),
or '' (none run)."""


NOTEBOOK_STATE = """() => [...document.querySelectorAll('.jp-Notebook .jp-Cell.jp-CodeCell')].map((cell) =>
    (cell.querySelector('.jp-InputPrompt')?.textContent ?? '') + ' '
    + (cell.querySelector('.jp-InputArea-editor .cm-line')?.textContent ?? '').slice(0, 60)
    + [...cell.querySelectorAll('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')]
        .map((output) => '\\n    ' + output.textContent.trim().split('\\n').slice(-3).join('\\n    ')).join('')
).join('\\n')"""
"""Each code cell's prompt ([*] running, [n] run, [ ] not yet), its first line and the end of what it
wrote to stderr: what a step that waited too long is told, to say where the notebook stopped."""


def _run_state_in(page: Any, states: list[str], timeout: int) -> str:
    """Waits until the notebook's RUN_STATE is one of `states`, and returns it."""
    wanted = f"(states) => {{ const state = ({RUN_STATE})(); return states.includes(state) && state; }}"
    return str(page.wait_for_function(wanted, arg=states, timeout=timeout).json_value())


def _dismiss_dialogs(page: Any) -> None:
    """Close any dialog JupyterLab has put up (on a loaded machine its server can answer late, and it
    says so in a dialog), so that the dialog does not take the clicks meant for the notebook; what
    the dialog was about, if it matters, fails the test at the step it stops."""
    dialogs = page.locator("dialog.jp-Dialog")
    for _ in range(5):
        if not dialogs.count():
            return
        page.keyboard.press("Escape")  # a dialog's cancel
        dialogs.first.wait_for(state="detached", timeout=GUARD_MS)


def _run_all_cells(page: Any) -> None:
    """Run > Run All Cells until every code cell has run: again if no cell has started a minute
    later (a loaded machine's JupyterLab can take the click before its menu acts on it: the run
    never starts), or if the run stopped before the last cell without an error (on a loaded
    machine JupyterLab has run the first cell and left the rest unrun, its kernel idle)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for attempt in range(3):
        _dismiss_dialogs(page)
        page.locator(".jp-Notebook").first.click()
        page.get_by_role("menuitem", name="Run", exact=True).click()
        page.get_by_text("Run All Cells", exact=True).click()
        try:
            _run_state_in(page, ["running", "done"], 60_000)
        except PlaywrightTimeout:
            if attempt == 2:
                raise
            continue
        if _run_state_in(page, ["done", "stopped"], GUARD_MS) == "done":
            return
    raise AssertionError(f"Run All Cells stopped before the last cell, three times:\n{page.evaluate(NOTEBOOK_STATE)}")


def _wait_for_widgets(page: Any, widgets: Any, shots: Path) -> None:
    """Both widgets shown (every cell above them run first); where they are not within the guard,
    a screenshot beside the others and an assertion that names the notebook's state."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        widgets.nth(1).wait_for(timeout=GUARD_MS)
    except PlaywrightTimeout:
        page.screenshot(path=str(shots / "widgets-not-shown-1280x800.png"), full_page=True)
        if os.environ.get("TTT_DB_SCREENSHOTS"):
            shutil.copytree(shots, os.environ["TTT_DB_SCREENSHOTS"], dirs_exist_ok=True)
        state = page.evaluate(NOTEBOOK_STATE)
        raise AssertionError(f"{widgets.count()} of the 2 widgets shown; the notebook's cells:\n{state}") from None


def test_the_widget_plays_a_game_and_replays_a_search_in_jupyterlab(jupyterlab: str, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    shots = tmp_path / "screenshots"
    shots.mkdir()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(jupyterlab + "lab/tree/tutorial.ipynb")
        page.wait_for_selector(".jp-Notebook", timeout=GUARD_MS)
        page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=GUARD_MS)
        news = page.get_by_role("button", name="No", exact=True)  # JupyterLab's question about its news
        if news.count():
            news.click()
        _run_all_cells(page)
        widgets = page.locator(".ttt-db-page")
        _wait_for_widgets(page, widgets, shots)
        play, search = widgets.nth(0), widgets.nth(1)
        play.locator("#board .cell.empty").first.wait_for(timeout=GUARD_MS)
        assert play.locator("#board .cell.win, #board .cell.draw, #board .cell.loss").count() == 9  # the hints
        play.locator("#board [data-cell='4']").click()  # o takes the centre; perfect-shortest answers as x
        page.wait_for_function("() => document.querySelectorAll('.jp-OutputArea-output').length > 0", timeout=GUARD_MS)
        play.locator("#moves-line").filter(has_text="2.").wait_for(timeout=GUARD_MS)
        assert play.locator("#board .cell.taken").count() == 2
        play.scroll_into_view_if_needed()
        page.screenshot(path=str(shots / "widget-play-1280x800.png"))
        chart = play.locator("#history-chart")
        chart.scroll_into_view_if_needed()
        page.screenshot(path=str(shots / "widget-history-1280x800.png"))
        box = chart.bounding_box()
        assert box is not None and box["width"] >= 360, box  # its text no smaller than written (9 px ticks)
        search.locator("#search-run").click()
        search.locator("#player:not([hidden])").wait_for(timeout=GUARD_MS)
        for _ in range(5):
            search.locator("#trace-step").click()
        assert "step 5 of" in search.locator("#trace-progress").inner_text()
        search.scroll_into_view_if_needed()
        page.screenshot(path=str(shots / "widget-search-1280x800.png"))
        page.set_viewport_size({"width": 390, "height": 844})
        page.keyboard.press("Escape")
        page.keyboard.press("Control+b")  # the file browser closed, as on a phone
        play.scroll_into_view_if_needed()
        page.screenshot(path=str(shots / "widget-play-390x844.png"))
        browser.close()
    assert not errors, errors
    assert sorted(path.name for path in shots.iterdir()) == [
        "widget-history-1280x800.png",
        "widget-play-1280x800.png",
        "widget-play-390x844.png",
        "widget-search-1280x800.png",
    ]
    if os.environ.get("TTT_DB_SCREENSHOTS"):  # a folder to keep them in, to look at
        shutil.copytree(shots, os.environ["TTT_DB_SCREENSHOTS"], dirs_exist_ok=True)
