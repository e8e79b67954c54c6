"""The export in arrays (issue 56): every level read as blocks of rows and written by kernels, held
line for line to the one-record writers (`write_jsonl`, `write_csv` over `Position.to_record`), one
row per class held to the rows of the canonical boards, both row modes held to tests/reference.py,
on tic-tac-toe (the interpreted kernels) and 3x4k3 (the compiled ones)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest
import reference

from ttt_db.game.definition import TICTACTOE, Game
from ttt_db.game.symmetry import canonical_board
from ttt_db.outputs.export import write_csv, write_jsonl, write_lines
from ttt_db.outputs.export_rows import RowMode, database_rows
from ttt_db.store.database import open_database

GAME_3x4 = Game.parse("3x4k3")
LEVELS_3x4 = (0, 4, 7, 12)
"""3x4k3's levels the line-for-line test reads: the empty board, the middle, the first finished
boards with both marks' lines, the full board (the one-record writers are slow on every level)."""


def _bulk(path: Path, game: Game, depths: tuple[int, ...] | None, mode: RowMode, *, as_csv: bool) -> tuple[str, int]:
    stream = io.BytesIO()
    counted: list[int] = []
    with open_database(path, game=game) as db:
        written = write_lines(
            database_rows(db, depths, mode, worths=False), stream, as_csv=as_csv, counted=counted.append
        )
    assert sum(counted) == written
    return stream.getvalue().decode(), written


def _one_at_a_time(path: Path, game: Game, depths: tuple[int, ...] | None, *, as_csv: bool) -> str:
    stream = io.StringIO()
    with open_database(path, game=game) as db:
        (write_csv if as_csv else write_jsonl)(db.all_positions(depths), stream)
    return stream.getvalue()


@pytest.fixture(params=["3x3k3", "3x4k3"])
def game_db(request: pytest.FixtureRequest) -> tuple[Game, Path, tuple[int, ...] | None]:
    if request.param == "3x3k3":
        return TICTACTOE, request.getfixturevalue("db_path"), None
    return GAME_3x4, request.getfixturevalue("db_3x4k3_path"), LEVELS_3x4


@pytest.mark.parametrize("as_csv", [False, True], ids=["jsonl", "csv"])
def test_the_bulk_writer_writes_what_the_record_writer_writes(
    game_db: tuple[Game, Path, tuple[int, ...] | None], as_csv: bool
) -> None:
    game, path, depths = game_db
    bulk, written = _bulk(path, game, depths, RowMode.positions, as_csv=as_csv)
    expected = _one_at_a_time(path, game, depths, as_csv=as_csv)
    assert bulk == expected
    assert written == expected.count("\n") - as_csv  # the CSV header is no row


def test_one_row_per_class_is_each_canonical_boards_own_row(game_db: tuple[Game, Path, tuple[int, ...] | None]) -> None:
    game, path, depths = game_db
    positions = _bulk(path, game, depths, RowMode.positions, as_csv=False)[0].splitlines()
    classes, written = _bulk(path, game, depths, RowMode.classes, as_csv=False)
    canonical_rows = [line for line in positions if json.loads(line)["board"] == json.loads(line)["canonical"]]
    assert sorted(classes.splitlines()) == sorted(canonical_rows)
    with open_database(path, game=game) as db:
        figures = db.depth_figures()
    assert written == sum(row.canonical_positions for row in figures if depths is None or row.depth in depths)
    orbits = sum(json.loads(line)["orbit"] for line in classes.splitlines())
    assert orbits == len(positions)  # each class stands for its orbit's boards, every board once


@pytest.mark.parametrize("mode", list(RowMode))
def test_both_row_modes_hold_to_the_reference(db_path: Path, mode: RowMode) -> None:
    rules = reference.TICTACTOE
    paths_to = reference.paths(rules)
    lines = _bulk(db_path, TICTACTOE, None, mode, as_csv=False)[0].splitlines()
    boards = reference.reachable(rules)
    wanted = boards if mode is RowMode.positions else sorted({min(rules.images(board)) for board in boards})
    records = [json.loads(line) for line in lines]
    assert sorted(record["board"] for record in records) == sorted(wanted)
    for record in records:
        expected = reference.export_record(record["board"], rules, paths_to)
        assert {key: record[key] for key in expected} == expected, record["board"]


def test_a_class_data_set_holds_every_move_to_the_reference(run, tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet", reason="pyarrow is not installed: pip install -e '.[parquet]'")
    from ttt_db.outputs.dataset import split_of, splits_of

    folder = tmp_path / "classes"
    result = run("export", "--format", "parquet", "--rows", "classes", "-o", str(folder))
    assert result.exit_code == 0, result.output
    assert "wrote 6" in result.stderr and "classes to" in result.stderr
    rules = reference.TICTACTOE
    solve = reference.solver(rules)
    rows = [row for split in ("train", "test") for row in pq.read_table(folder / f"{split}.parquet").to_pylist()]
    assert sorted(row["board"] for row in rows) == sorted({min(rules.images(b)) for b in reference.reachable(rules)})
    for row in rows:
        board = row["board"]
        assert row["canonical"] == board == canonical_board(board, TICTACTOE)
        children = dict(rules.children(board)) if not rules.finished(board) else {}
        mover_sign = 1 if rules.mover(board) == "o" else -1
        assert row["move_value"] == [
            mover_sign * solve(children[cell]).score if cell in children else None for cell in range(rules.cells)
        ], board
        assert row["move_remoteness"] == [
            solve(children[cell]).remoteness if cell in children else None for cell in range(rules.cells)
        ], board
        assert row["split"] == split_of(TICTACTOE, board)
    keys = np.array([TICTACTOE.key(row["board"]) for row in rows], np.int64)
    assert [("test" if test else "train") for test in splits_of(TICTACTOE, keys)] == [row["split"] for row in rows]
    card = (folder / "README.md").read_text()
    assert f"({len(rows):,} classes: a board and its rotations and reflections are one class)" in card
    counts = {value: sum(1 for row in rows if row["value"] == value) for value in ("win", "draw", "loss")}
    assert f"class by class: {counts['win']:,} win, {counts['draw']:,} draw, {counts['loss']:,} loss" in card


def test_export_rows_classes_says_what_it_wrote(run, tmp_path: Path) -> None:
    target = tmp_path / "classes.csv"
    result = run("export", "--rows", "classes", "--format", "csv", "--depth", "2", "-o", str(target))
    assert result.exit_code == 0, result.output
    rules = reference.TICTACTOE
    at_two = {min(rules.images(board)) for board in reference.reachable(rules) if board.count(".") == 7}
    assert result.stderr.endswith(f"wrote {len(at_two):,} classes to {target}\n")
    rows = target.read_text().splitlines()[1:]
    assert sorted(row.split(",")[0] for row in rows) == sorted(at_two)
    refused = run("export", "--format", "uci-endgame", "--rows", "classes")
    assert refused.exit_code == 2 and "no --rows classes" in refused.stderr and "--depth" not in refused.stderr
    # issue 59: another game is refused for being another game, not for a --depth never given
    other = run("export", "--format", "uci-endgame", "--game", "4x4k4")
    assert other.exit_code == 2 and "not 4x4k4's" in other.stderr and "--depth" not in other.stderr


def test_the_data_set_holds_each_row_to_its_positions_own(
    game_db: tuple[Game, Path, tuple[int, ...] | None], tmp_path: Path
) -> None:
    pq = pytest.importorskip("pyarrow.parquet", reason="pyarrow is not installed: pip install -e '.[parquet]'")
    from ttt_db.outputs.dataset import SPLITS, dataset_row, write_dataset

    game, path, depths = game_db
    folder = tmp_path / "set"
    with open_database(path, game=game) as db:
        summary = write_dataset(database_rows(db, depths, RowMode.positions), folder, game, mode=RowMode.positions)
        expected = {row["board"]: row for row in map(dataset_row, db.all_positions(depths))}
    rows = [row for split in SPLITS for row in pq.read_table(folder / f"{split}.parquet").to_pylist()]
    assert len(rows) == len(expected) == sum(summary.rows.values())
    assert {split: sum(row["split"] == split for row in rows) for split in SPLITS} == summary.rows
    for row in rows:
        assert row == expected[row["board"]], row["board"]


def test_a_data_set_whose_write_fails_leaves_nothing_behind(
    db_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Writes that fail on the writers' threads (a full disk: every one from the fifth) raise the
    first failure, and no file is left."""
    pq = pytest.importorskip("pyarrow.parquet", reason="pyarrow is not installed: pip install -e '.[parquet]'")
    from ttt_db.outputs.dataset import write_dataset

    written = pq.ParquetWriter.write_batch
    calls: list[int] = []

    def failing(self: object, batch: object, *args: object, **kwargs: object) -> None:
        calls.append(1)
        if len(calls) >= 5:
            raise OSError(28, "No space left on device")
        written(self, batch, *args, **kwargs)

    monkeypatch.setattr(pq.ParquetWriter, "write_batch", failing)
    folder = tmp_path / "set"
    with open_database(db_path) as db, pytest.raises(OSError, match="No space left"):
        write_dataset(database_rows(db, None, RowMode.positions), folder, TICTACTOE, mode=RowMode.positions)
    assert len(calls) >= 5 and list(folder.iterdir()) == []
