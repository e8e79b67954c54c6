"""Issue 58: JSON nested 100,000 deep or holding a 5,000-digit number was an internal error (exit 3,
a 500) in every reader but the trace checker's: one hostile line ended a bot's whole stream. Every
reader of JSON from outside now refuses it in words (`ttt_db.json_text.read_json`), with the exit
code or status of bad input, and goes on where it can."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from ttt_db.errors import PublishedFileError
from ttt_db.json_text import NUMBER_DIGITS, JSONInputError, read_json
from ttt_db.store.database import SolutionDatabase
from ttt_db.store.mirror import read_manifest
from ttt_db.web.app import create_app

DEEP = "[" * 100_000 + "]" * 100_000
LONG_NUMBER = "9" * 5_000
HOSTILE = {
    "deep": (DEEP, "nested deeper than JSON this reader takes"),
    "digits": (f'{{"board": "o........", "n": {LONG_NUMBER}}}', f"a number of more than {NUMBER_DIGITS} digits"),
}


@pytest.fixture(scope="module")
def client(db: SolutionDatabase) -> Iterator[TestClient]:
    with TestClient(create_app(db)) as test_client:
        yield test_client


@pytest.mark.parametrize("kind", list(HOSTILE))
def test_the_reader_says_what_is_wrong(kind: str) -> None:
    text, words = HOSTILE[kind]
    with pytest.raises(JSONInputError, match=words):
        read_json(text)
    assert read_json('{"n": ' + "9" * NUMBER_DIGITS + "}") == {"n": int("9" * NUMBER_DIGITS)}


def test_a_hostile_line_of_a_batch_is_answered_and_the_stream_goes_on(run) -> None:
    lines = "\n".join(['{"board": ' + DEEP + "}", HOSTILE["digits"][0], "x........"]) + "\n"
    result = run("best-moves", "-", input=lines)
    assert result.exit_code == 0, result.output  # a bad line is answered with its error, as a bad board is
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    assert [sorted(answer) for answer in answers[:2]] == [["error", "input"], ["error", "input"]]
    assert HOSTILE["deep"][1] in answers[0]["error"] and HOSTILE["digits"][1] in answers[1]["error"]
    assert all(len(answer["input"]) <= 201 for answer in answers[:2])  # quoted cut, not echoed whole
    assert answers[2]["board"] == "x........" and answers[2]["value"] == "draw"


def test_judge_lists_hostile_lines_among_those_it_could_not_read(run, tmp_path: Path) -> None:
    answers = tmp_path / "answers.jsonl"
    answers.write_text(DEEP + "\n" + HOSTILE["digits"][0] + "\n")
    result = run("judge", str(answers), "--json")
    assert result.exit_code != 3, result.output
    errors = json.loads(result.stdout)["errors"]
    assert [error["line"] for error in errors] == [1, 2]
    assert HOSTILE["deep"][1] in errors[0]["error"] and HOSTILE["digits"][1] in errors[1]["error"]


@pytest.mark.parametrize("kind", list(HOSTILE))
def test_a_policy_file_that_is_hostile_json_fails_to_load_saying_why(run, tmp_path: Path, kind: str) -> None:
    policy = tmp_path / "policy.json"
    policy.write_text(HOSTILE[kind][0] if kind == "deep" else '{"o........": {"4": ' + LONG_NUMBER + "}}")
    result = run("score", str(policy))
    assert result.exit_code == 2 and HOSTILE[kind][1] in result.stderr, result.output


@pytest.mark.parametrize("path", ["/api/positions", "/api/score"])
@pytest.mark.parametrize("kind", list(HOSTILE))
def test_a_hostile_body_is_a_400(client: TestClient, path: str, kind: str) -> None:
    body = HOSTILE[kind][0] if kind == "deep" else "[" + LONG_NUMBER + "]"
    answer = client.post(path, content=body)
    assert answer.status_code == 400 and HOSTILE[kind][1] in answer.json()["error"]


@pytest.mark.parametrize("kind", list(HOSTILE))
def test_a_hostile_manifest_is_refused_as_one(kind: str) -> None:
    with pytest.raises(PublishedFileError, match=f"is not a manifest: {HOSTILE[kind][1]}"):
        read_manifest(HOSTILE[kind][0].encode(), "mirror/manifest.json")


def test_a_line_past_the_line_limit_is_refused_cut_and_the_lines_after_it_answered(run) -> None:
    """Issue 58: one 80 MB line without a newline cost 33 s and 603 MB (the line was joined again
    at every read); a line is kept to LINE_BYTES and the rest skipped as it comes."""
    from ttt_db.cli.streams import LINE_BYTES

    result = run("best-moves", "-", input="x........\n" + "o" * (4 * LINE_BYTES) + "\n.........\n")
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    assert [answer.get("board") for answer in answers] == ["x........", None, "........."]
    assert answers[1]["input"] == "o" * 200 + "…" and "invalid board" in answers[1]["error"]


def test_a_long_line_read_in_many_pieces_is_kept_to_the_limit(tmp_path: Path) -> None:
    from ttt_db.cli.streams import LINE_BYTES, ArrivedLines

    source = tmp_path / "lines.txt"
    source.write_bytes(b"a\n" + b"b" * (20 * LINE_BYTES) + b"\nc\n" + b"d" * (3 * LINE_BYTES))
    with source.open("rb") as stream:
        lines = [line for group in ArrivedLines(stream) for line in group]
    assert lines == ["a", "b" * LINE_BYTES, "c", "d" * LINE_BYTES]


def test_a_lone_surrogate_in_a_batch_is_answered_and_the_rest_too(client: TestClient, run) -> None:
    """JSON's `\\udcff` escape reads as a lone surrogate, which orjson refuses to write: a batch item
    holding one was an internal error (a 500, no board answered). It is answered with its error, the
    input escaped as JSON escapes it, and the next board is answered; a stream's line too."""
    answer = client.post("/api/positions", content='["o\\udcff.......", "x........"]')
    assert answer.status_code == 200, answer.text
    bad, good = answer.json()["positions"]
    assert bad["input"] == "o\udcff......." and "invalid board" in bad["error"]
    assert good["board"] == "x........" and good["value"] == "draw"
    result = run("best-moves", "-", input='{"board": "o\\udcff......."}\nx........\n')
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert "invalid board" in json.loads(lines[0])["error"] and json.loads(lines[1])["board"] == "x........"


def test_compact_json_writes_what_orjson_refuses_as_the_standard_library_does() -> None:
    from ttt_db.json_text import compact_json

    for document in ({"input": "o\udcff", "n": 1}, [2**70, "é"]):
        assert compact_json(document) == json.dumps(document, separators=(",", ":")).encode()
        assert read_json(compact_json(document)) == document
    assert compact_json({"a": "é"}) == '{"a":"é"}'.encode()  # UTF-8, as orjson writes it
