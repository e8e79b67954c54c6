"""Traces: ttt-db's own pass `check-trace`; the README's user-written alpha-beta passes; the same
search with the classic table bug (fail-high/fail-low results stored as exact) is caught at the
first node that returns a wrong value, found here independently; malformed traces exit 2."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import reference

from ttt_db.search.algorithms import run_search
from ttt_db.search.trace import TraceWriter, header
from ttt_db.search.trace_check import check_trace

README = Path(__file__).resolve().parent.parent / "README.md"


def _readme_search() -> str:
    text = README.read_text()
    return re.search(r"<!-- trace-example -->\n```python\n(.*?)```", text, re.S).group(1)  # type: ignore[union-attr]


BROKEN_TABLE = """
table = {}
_correct_search = search

def search(board, alpha, beta, parent=None, move=None, ply=0):
    global nodes
    if board in table:  # the bug: a bound is used as if it were the exact value
        nodes += 1
        out.write(json.dumps({"type": "enter", "id": nodes, "parent": parent, "board": board,
                              "ply": ply, "move": move, "alpha": alpha, "beta": beta}) + "\\n")
        out.write(json.dumps({"type": "exit", "id": nodes, "value": table[board]}) + "\\n")
        return table[board]
    value = _correct_search(board, alpha, beta, parent, move, ply)
    table[board] = value
    return value
"""


def _run_user_search(tmp_path: Path, source: str, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    code = source.replace('search(".........", -2, 2)\nout.close()\n', "")
    namespace: dict[str, object] = {}
    exec(compile(code, "my_search.py", "exec"), namespace)  # noqa: S102 - the README's own example
    namespace["search"](".........", -2, 2)  # type: ignore[operator]
    namespace["out"].close()  # type: ignore[attr-defined]
    return tmp_path / "my-trace.jsonl"


solve = reference.solver()


def _exact_wdl(board: str, first: str) -> tuple[int, int, int]:
    solved = solve(board)
    return solved.score, 0, solved.remoteness


def test_the_readme_search_passes(run, tmp_path: Path, monkeypatch) -> None:
    trace = _run_user_search(tmp_path, _readme_search(), monkeypatch)
    result = run("check-trace", str(trace))
    assert result.exit_code == 0, result.stdout
    assert result.stdout.splitlines()[0] == "my-alphabeta from ......... (wdl scale): ok"


def test_the_classic_table_bug_is_caught_at_the_right_node(run, tmp_path: Path, monkeypatch) -> None:
    trace = _run_user_search(tmp_path, _readme_search() + BROKEN_TABLE, monkeypatch)
    wrong = reference.first_broken_node(trace.read_text().splitlines(), "first")
    result = run("check-trace", str(trace), "--json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert not report["ok"] and report["failures"][0]["id"] == wrong
    failure = report["failures"][0]
    assert failure["exact"] != failure["value"]
    text = run("check-trace", str(trace), "--show", "1").stdout.splitlines()
    assert re.fullmatch(r"my-alphabeta from \.{9} \(wdl scale\): FAILED: [\d,]+ nodes? breaks? a rule", text[0])
    assert text[3].startswith(f"  node {wrong} (record ")


@pytest.mark.parametrize(
    "algorithm",
    [
        "minimax-tt",
        "alphabeta",
        "alphabeta-plain",
        "alphabeta-shortest",
        "minimax-tt-shortest",
        "dls@3",
        "abdls@2",
        "iddfs@1",  # every iteration completes: the trace does not depend on the machine's load
    ],
)
@pytest.mark.parametrize("board", ["o...x....", "oo..x.x..", "xo..o..x."])
def test_ttt_db_traces_pass(run, tmp_path: Path, algorithm: str, board: str) -> None:
    trace = tmp_path / "trace.jsonl"
    searched = run("search", algorithm, board, "--trace", str(trace))
    assert searched.exit_code == 0, searched.output
    result = run("check-trace", str(trace), "--json")
    assert result.exit_code == 0, result.stdout
    report = json.loads(result.stdout)
    assert report["nodes"] == report["checked"] + report["estimates"] > 0


def test_an_x_first_boards_trace_shows_the_board_as_given(run, tmp_path: Path) -> None:
    """The search runs on the mark-swapped board; its trace and check-trace name the user's board
    (they named the swapped one), x first, and every node's board has the user's marks."""
    trace = tmp_path / "trace.jsonl"
    assert run("search", "alphabeta", "ox..x....", "--trace", str(trace)).exit_code == 0
    records = [json.loads(line) for line in trace.read_text().splitlines()]
    assert (records[0]["board"], records[0]["first"]) == ("ox..x....", "x")
    boards = [record["board"] for record in records if record["type"] == "enter"]
    assert boards[0] == "ox..x...." and all(board[:2] == "ox" and board[4] == "x" for board in boards)
    checked = run("check-trace", str(trace))
    assert checked.exit_code == 0 and checked.stdout.startswith("alphabeta from ox..x.... (wdl scale): ok")


def test_plain_minimax_trace_checks_every_node_exactly(tmp_path: Path) -> None:
    path = tmp_path / "minimax.jsonl"
    with path.open("w") as stream:
        report = run_search(
            "minimax", "ox..x...o", tracer=TraceWriter(stream, header("minimax", "ox..x...o", "wdl", "o", "3x3k3"))
        )
    with path.open() as stream:
        result = check_trace(stream, _exact_wdl)
    assert result.ok and result.nodes == result.checked == report.counts.nodes
    assert len(path.read_text().splitlines()) == 1 + 2 * report.counts.nodes


HEADER = (
    '{"type": "header", "format": "ttt-db-trace", "version": 1, "algorithm": "t", "board": ".........", "scale": "wdl"}'
)


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ([], "malformed trace, record 1: the trace is empty"),
        (['{"type": "enter"}'], "malformed trace, record 1: the first record must be"),
        ([HEADER, "{not json"], "malformed trace, record 2: not JSON"),
        (
            [HEADER, '{"type": "exit", "id": 1, "value": 0}'],
            "malformed trace, record 2: exit of node 1, but the open node is none",
        ),
        (
            [
                HEADER,
                '{"type": "enter", "id": 1, "parent": null, "board": ".........", "ply": 0, "move": null, '
                '"alpha": null, "beta": null}',
            ],
            "malformed trace, record 2: the trace ends with node 1 still open",
        ),
        (
            [HEADER, '{"type": "enter", "id": 1, "parent": null, "board": ".........", "ply": 0}'],
            "malformed trace, record 2: enter has no 'move'",
        ),
        ([HEADER.replace('"wdl"', '"elo"')], "malformed trace, record 1: scale 'elo' is not one of"),
        ([HEADER, '{"type": "jump"}'], "malformed trace, record 2: type 'jump' is not enter or exit"),
        (
            [
                HEADER,
                '{"type": "enter", "id": 1, "parent": null, "board": "xxx......", "ply": 0, "move": null, '
                '"alpha": null, "beta": null}',
                '{"type": "exit", "id": 1, "value": 0}',
            ],
            "malformed trace, record 3: node 1: invalid board 'xxx......': o has 0 marks and x has 3 marks",
        ),
    ],
)
def test_malformed_traces_exit_2_naming_the_record(run, tmp_path: Path, lines: list[str], message: str) -> None:
    trace = tmp_path / "bad.jsonl"
    trace.write_text("\n".join(lines) + ("\n" if lines else ""))
    result = run("check-trace", str(trace))
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {message}"), result.stderr
