"""Traces from any search: a negamax writing the mover's window passes once its header says so
and a broken one fails at the right node; infinite windows are part of the format and nothing
check-trace prints is invalid JSON; impossible traces are malformed (exit 2, naming the record)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import reference

TRACE_DOC = Path(__file__).resolve().parent.parent / "docs" / "trace.md"
solve = reference.solver()


def _negamax_source() -> str:
    text = TRACE_DOC.read_text()
    return re.search(r"<!-- negamax-example -->\n```python\n(.*?)```", text, re.S).group(1)  # type: ignore[union-attr]


def _run(source: str, tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    exec(compile(source, "my_negamax.py", "exec"), {})  # noqa: S102 - the documentation's own example
    return tmp_path / "negamax-trace.jsonl"


def _strict_json(text: str) -> object:
    def refuse(constant: str) -> object:
        raise ValueError(f"not JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


def test_the_documented_negamax_passes_with_the_movers_viewpoint(run, tmp_path: Path, monkeypatch) -> None:
    trace = _run(_negamax_source(), tmp_path, monkeypatch)
    assert '"alpha": "-inf"' in trace.read_text()
    result = run("check-trace", str(trace), "--json")
    assert result.exit_code == 0, result.stdout
    report = _strict_json(result.stdout)
    assert report["ok"] and report["nodes"] == report["checked"] == len(trace.read_text().splitlines()[1:]) // 2


def test_without_the_viewpoint_the_same_negamax_fails_where_x_moves_first(run, tmp_path: Path, monkeypatch) -> None:
    trace = _run(_negamax_source().replace(', "viewpoint": "mover"', ""), tmp_path, monkeypatch)
    result = run("check-trace", str(trace), "--json")
    assert result.exit_code == 1
    report = _strict_json(result.stdout)  # infinite windows in the failures, still JSON
    first = report["failures"][0]
    assert first["board"].count("o") > first["board"].count("x")  # x to move: its sign is the other one


BROKEN = """
table = {}
_correct = negamax

def negamax(board, alpha, beta, parent=None, move=None, ply=0):
    global nodes
    if board in table:  # the classic bug: a fail-high or fail-low result reused as exact
        nodes += 1
        out.write(json.dumps({"type": "enter", "id": nodes, "parent": parent, "board": board, "ply": ply,
                              "move": move, "alpha": bound(alpha), "beta": bound(beta)}) + "\\n")
        out.write(json.dumps({"type": "exit", "id": nodes, "value": table[board]}) + "\\n")
        return table[board]
    value = _correct(board, alpha, beta, parent, move, ply)
    table[board] = value
    return value

negamax(".........", -math.inf, math.inf)
out.close()
"""


def test_a_broken_negamax_fails_at_the_right_node(run, tmp_path: Path, monkeypatch) -> None:
    source = _negamax_source().replace('negamax(".........", -math.inf, math.inf)\nout.close()\n', "") + BROKEN
    trace = _run(source, tmp_path, monkeypatch)
    result = run("check-trace", str(trace), "--json")
    assert result.exit_code == 1
    assert _strict_json(result.stdout)["failures"][0]["id"] == reference.first_broken_node(
        trace.read_text().splitlines(), "mover"
    )


HEADER = (
    '{"type": "header", "format": "ttt-db-trace", "version": 1, "algorithm": "t", "board": ".........", "scale": "wdl"}'
)


def _enter(node: int, parent: int | None, board: str, ply: int, move: int | None, alpha="-inf", beta="inf") -> str:
    return json.dumps(
        {
            "type": "enter",
            "id": node,
            "parent": parent,
            "board": board,
            "ply": ply,
            "move": move,
            "alpha": alpha,
            "beta": beta,
        }
    )


@pytest.mark.parametrize(
    ("records", "message"),
    [
        (
            [_enter(1, None, ".........", 0, None), _enter(2, 1, "x........", 1, 0)],
            "record 3: node 2's board 'x........' is not",
        ),
        (
            [_enter(1, None, ".........", 0, None), _enter(2, 1, "o........", 2, 0)],
            "record 3: node 2 is at ply 2, its parent 1",
        ),
        ([_enter(1, None, ".........", 0, None, 1, -1)], "record 2: node 1's window (1, -1) has alpha above beta"),
        ([_enter(1, None, ".........", 0, None), _enter(1, 1, "o........", 1, 0)], "record 3: node 1 after node 1"),
        ([_enter(1, None, ".........", 0, None, "nan", 1)], "record 2: 'alpha' is 'nan'"),
        ([_enter(1, None, ".........", 3, None)], "record 2: root node 1 must have ply 0"),
    ],
)
def test_an_impossible_trace_is_malformed(run, tmp_path: Path, records: list[str], message: str) -> None:
    trace = tmp_path / "bad.jsonl"
    trace.write_text("\n".join([HEADER, *records]) + "\n")
    result = run("check-trace", str(trace))
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith(f"error: malformed trace, {message}"), result.stderr


def test_jsons_own_infinity_is_read_and_never_written(run, tmp_path: Path) -> None:
    trace = tmp_path / "python-inf.jsonl"
    trace.write_text(
        "\n".join(
            [
                HEADER,
                '{"type": "enter", "id": 1, "parent": null, "board": "oo.xx....", "ply": 0, "move": null, '
                '"alpha": -Infinity, "beta": Infinity}',
                '{"type": "exit", "id": 1, "value": -1}',
            ]
        )
        + "\n"
    )
    result = run("check-trace", str(trace), "--json")
    assert result.exit_code == 1  # o wins with c1: -1 is no exact value
    failure = _strict_json(result.stdout)["failures"][0]  # type: ignore[index]
    assert (failure["alpha"], failure["beta"], failure["exact"]) == ("-inf", "inf", 1)


def test_ids_and_values_past_64_bits_are_read_exactly(run, tmp_path: Path) -> None:
    """The fast reader takes an integer past 64 bits as a float (`read_json_fast`): such records are
    read again exactly, so two ids a float cannot tell apart stay two nodes, and a value is
    reported as written."""
    root, child, huge = 2**70, 2**70 + 1, 2**64 + 1
    trace = tmp_path / "wide.jsonl"
    trace.write_text(
        "\n".join(
            [
                HEADER,
                _enter(root, None, ".........", 0, None),
                _enter(child, root, "o........", 1, 0),
                json.dumps({"type": "exit", "id": child, "value": 0}),
                json.dumps({"type": "exit", "id": root, "value": huge}),
            ]
        )
        + "\n"
    )
    result = run("check-trace", str(trace), "--json")
    assert result.exit_code == 1, result.stderr  # the child is right; the root's value is no exact one
    report = _strict_json(result.stdout)
    assert report["nodes"] == 2 and report["checked"] == 2  # type: ignore[index]
    assert [(failure["id"], failure["value"]) for failure in report["failures"]] == [(root, huge)]  # type: ignore[index]


MALFORMED_BYTES = [
    (b"\xff\xfe not text\n", "record 1: not UTF-8 text"),
    (HEADER.encode() + b"\n" + b"[" * 60_000 + b"\n", "record 2: nested deeper than JSON this reader takes"),
    (b"[" * 100_000, "record 1: longer than 65,536 bytes"),
    (b"\x00" * 200_000, "record 1: longer than 65,536 bytes"),
    (
        HEADER.encode() + b'\n{"type": "exit", "id": ' + b"9" * 5_000 + b', "value": 0}\n',
        "record 2: a number of more than 100",
    ),
    (b"", "record 1: the trace is empty"),
]


@pytest.mark.parametrize(("content", "message"), MALFORMED_BYTES)
def test_any_bytes_are_a_trace_or_a_malformed_one(run, tmp_path: Path, content: bytes, message: str) -> None:
    trace = tmp_path / "bytes.jsonl"
    trace.write_bytes(content)
    result = run("check-trace", str(trace))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.startswith(f"error: malformed trace, {message}") and result.stderr.count("\n") == 1
