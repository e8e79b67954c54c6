"""`export --format parquet` (issue 36): a data set whose rows are the export's records with every
move's value and remoteness over the cells, held to tests/reference.py; the split by class; the
card's counts; a folder that is not ours refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import reference

pq = pytest.importorskip("pyarrow.parquet", reason="pyarrow is not installed: pip install -e '.[parquet]'")


def _mover_score(rules: reference.Rules, board: str) -> int:
    solved = reference.solver(rules)(board)
    return solved.score if rules.mover(board) == "o" else -solved.score


def test_the_data_set_is_every_position_with_its_moves_as_arrays(run, tmp_path: Path) -> None:
    folder = tmp_path / "set"
    result = run("export", "--format", "parquet", "-o", str(folder))
    assert result.exit_code == 0, result.output
    rows = [row for split in ("train", "test") for row in pq.read_table(folder / f"{split}.parquet").to_pylist()]
    rules = reference.TICTACTOE
    assert sorted(row["board"] for row in rows) == sorted(reference.reachable(rules))
    records = {record["board"]: record for record in map(json.loads, run("export").stdout.splitlines())}
    splits: dict[str, set[str]] = {}
    for row in rows:
        board = row["board"]
        record = records[board]
        del record["playout_odds"]
        assert {key: row[key] for key in record} == record, board
        children = dict(rules.children(board)) if not rules.finished(board) else {}
        assert row["move_value"] == [
            -_mover_score(rules, children[cell]) if cell in children else None for cell in range(rules.cells)
        ], board
        assert row["move_remoteness"] == [
            reference.solver(rules)(children[cell]).remoteness if cell in children else None
            for cell in range(rules.cells)
        ], board
        splits.setdefault(row["canonical"], set()).add(row["split"])
    assert all(len(found) == 1 for found in splits.values())  # a class is never on both sides
    test_classes = sum(1 for found in splits.values() if found == {"test"})
    assert 0.1 < test_classes / len(splits) < 0.3  # one class in five, by a hash
    card = (folder / "README.md").read_text()
    train = sum(1 for row in rows if row["split"] == "train")
    assert f"| train | {train:,} | {len(splits) - test_classes:,} |" in card
    assert f"| test | {len(rows) - train:,} | {test_classes:,} |" in card
    assert "path: train.parquet" in card and "license: cc0-1.0" in card
    again = run("export", "--format", "parquet", "-o", str(folder))  # its own card is replaced
    assert again.exit_code == 0 and (folder / "README.md").read_text() == card


def test_a_folder_with_someone_elses_readme_or_a_file_is_refused(run, tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "README.md").write_text("# my notes\n")
    refused = run("export", "--format", "parquet", "-o", str(folder))
    assert refused.exit_code == 2 and "is not a card ttt-db wrote" in refused.stderr
    assert (folder / "README.md").read_text() == "# my notes\n" and not (folder / "train.parquet").exists()
    afile = tmp_path / "file.parquet"
    afile.write_text("x")
    assert "is a file" in run("export", "--format", "parquet", "-o", str(afile)).stderr
    assert "give it with -o" in run("export", "--format", "parquet").stderr
    assert "is a folder" in run("export", "-o", str(folder)).stderr
