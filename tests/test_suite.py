"""Benchmark suites and their judge (issue 36): every label held to tests/reference.py's solver,
the tiers balanced and the draw repeatable, answers judged as the reference says."""

from __future__ import annotations

import json
from pathlib import Path

import reference

RULES = reference.TICTACTOE


def _reference_labels(board: str) -> dict[int, bool]:
    """Each move of an o-first board: does it keep the mover's value (the reference's best moves)."""
    best = set(reference.best_moves(board))
    return {move: move in best for move, _ in RULES.children(board)}


def test_a_suite_labels_every_move_exactly_and_balances_its_tiers(run) -> None:
    result = run("suite", "-n", "90", "--seed", "3")
    assert result.exit_code == 0, result.output
    items = [json.loads(line) for line in result.stdout.splitlines()]
    decision = set(reference.decision_boards())
    assert len(items) == 90 and len({item["board"] for item in items}) == 90
    for item in items:
        assert item["board"] in decision
        labels = _reference_labels(item["board"])
        assert {move["move"]: move["keeps"] for move in item["moves"]} == labels
        kept = sum(labels.values())
        assert item["keeping"] == kept and item["tier"] == ("hard" if kept == 1 else "medium" if kept == 2 else "easy")
    assert [item["tier"] for item in items].count("hard") == 30  # evenly from the three tiers
    assert run("suite", "-n", "90", "--seed", "3").stdout == result.stdout  # repeatable
    hard = [json.loads(line) for line in run("suite", "-n", "5", "--tier", "hard").stdout.splitlines()]
    assert {item["tier"] for item in hard} == {"hard"}
    assert run("suite", "--tier", "impossible").exit_code == 2


def test_judge_scores_answers_as_the_reference_does(run, tmp_path: Path) -> None:
    boards = sorted(reference.decision_boards())[::40]
    answers = [{"id": n, "board": board, "move": board.index(".")} for n, board in enumerate(boards)]
    file = tmp_path / "answers.jsonl"
    file.write_text("\n".join(json.dumps(a) for a in answers) + '\n{"board": "bad", "move": 1}\nnot json\n')
    result = run("judge", str(file), "--json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    solve = reference.solver(RULES)
    for answer, verdict in zip(answers, document["verdicts"], strict=True):
        board, move = answer["board"], answer["move"]
        child = board[:move] + RULES.mover(board) + board[move + 1 :]
        sign = 1 if RULES.mover(board) == "o" else -1
        assert verdict["kept"] == (solve(child).score == solve(board).score), board
        assert verdict["value_lost"] == sign * (solve(board).score - solve(child).score)
    kept = sum(v["kept"] for v in document["verdicts"])
    assert document["summary"]["all"] == document["summary"]["all"] | {"answers": len(answers), "kept": kept}
    assert len(document["errors"]) == 2 and "expected 9 cells" in document["errors"][0]["error"]
    text = run("judge", str(file)).stdout
    assert text.startswith(f"{len(answers):,} answers judged, 2 could not be")
    assert [error["line"] for error in document["errors"]] == [len(answers) + 1, len(answers) + 2]


def test_judge_takes_cell_names_and_says_which_lines_it_could_not_judge(run, tmp_path: Path) -> None:
    """Issue 59, item 5: `"move": "b2"` is a move as every command takes it; each line not judged is
    named by its number, its input shown as written, and the ones past the first five counted."""
    board = sorted(reference.decision_boards())[0]
    cell = board.index(".")
    name = f"{'abc'[cell % 3]}{cell // 3 + 1}"
    good = [{"board": board, "move": cell}, {"board": board, "move": name}]
    bad = [{"board": "bad", "move": 1}] * 4 + [{"board": board, "move": [1]}, {"board": board, "move": "z9"}]
    file = tmp_path / "answers.jsonl"
    file.write_text("\n".join(json.dumps(record) for record in good + bad) + "\n")
    document = json.loads(run("judge", str(file), "--json").stdout)
    by_index, by_name = document["verdicts"]
    assert by_name == by_index  # the name is the index's cell
    assert [error["line"] for error in document["errors"]] == list(range(3, 3 + len(bad)))
    shown = run("judge", str(file))
    assert shown.exit_code == 0
    said = shown.stderr.splitlines()
    assert said[0].startswith("  not judged, line 3: ")
    assert said[4].startswith("  not judged, line 7: ") and '{"board":' in said[4] and "{'board'" not in said[4]
    assert said[5] == "  and 1 more not judged (--json lists every one)"


def test_a_suite_as_large_as_its_tier_is_each_of_its_classes_once(run) -> None:
    """Drawn by class and then by image, a tier asked whole gives each of its classes once, at one
    of its boards: no position twice, not even turned around, none from another tier."""
    hard = {board for board in reference.decision_boards() if sum(_reference_labels(board).values()) == 1}
    classes = {min(RULES.images(board)) for board in hard}
    result = run("suite", "-n", "100000", "--tier", "hard", "--seed", "7")
    assert result.exit_code == 0, result.output
    boards = [json.loads(line)["board"] for line in result.stdout.splitlines()]
    assert set(boards) <= hard and len(boards) == len(classes)
    assert {min(RULES.images(board)) for board in boards} == classes
    assert any(board not in classes for board in boards)  # an image, not always the canonical board


def test_suite_json_is_one_document_of_the_same_positions(run) -> None:
    """Issue 59, item 5: `suite --json`, as every query command takes it: the lines as one list."""
    lines = run("suite", "-n", "12", "--seed", "3").stdout.splitlines()
    document = run("suite", "-n", "12", "--seed", "3", "--json")
    assert document.exit_code == 0, document.output
    assert json.loads(document.stdout) == [json.loads(line) for line in lines]
