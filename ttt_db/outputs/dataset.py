"""A game's solution as a machine-learning data set: every position's export record with its
moves' values and remoteness as arrays over the cells, split into train and test by a hash of
its class (every image of a board on one side), written as Parquet (pyarrow, the `parquet`
extra) with a dataset card beside it: `export --format parquet -o FOLDER`.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from ttt_db.errors import InputError
from ttt_db.game.definition import Game
from ttt_db.game.rules import VALUES, mover_at, value_score
from ttt_db.outputs.export_rows import RowMode
from ttt_db.position import Position, value_fields
from ttt_db.ranked.blocks import board_chars, mask_cell_lists
from ttt_db.ranked.codes import move_of_worth, value_of_code
from ttt_db.version import __version__

if TYPE_CHECKING:
    from concurrent.futures import Future

    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq
    from numpy.typing import NDArray

    from ttt_db.outputs.export_rows import RowBlock

SPLITS: Final = ("train", "test")
TEST_SHARE: Final = 5
"""One class in TEST_SHARE is in the test split (by `split_of`)."""
DICTIONARY_COLUMNS: Final = (
    "to_move",
    "status",
    "value",
    "first",
    "score_viewpoint",
    "value_viewpoint",
    "game",
    "split",
    "score",
    "sv_score",
    "remoteness",
    "depth",
    "orbit",
)
"""The columns of few distinct values, stored as dictionaries (a board's text or its moves are not)."""
CARD: Final = "README.md"
CARD_MARK: Final = "<!-- written by ttt-db export --format parquet -->"
"""The card's own line: a README.md without it in the folder is someone else's and never replaced."""


def split_of(game: Game, canonical: str) -> str:
    """The split of a class, by its canonical board: the same on every machine and in every run
    (`splits_of` for many)."""
    return SPLITS[int(_split_numbers(game, [game.key(canonical)])[0])]


def splits_of(game: Game, class_keys: NDArray[np.int64]) -> NDArray[np.bool_]:
    """Whether each class (by its canonical board's key, `Game.key`) is in the test split: a
    64-bit mix (splitmix64) of the key and the game's name, one class in TEST_SHARE."""
    test: NDArray[np.bool_] = _split_numbers(game, class_keys) == SPLITS.index("test")
    return test


def _split_numbers(game: Game, keys: Any) -> NDArray[np.int64]:
    import numpy as np

    seed = int.from_bytes(hashlib.blake2b(f"ttt-db split {game.name}".encode(), digest_size=8).digest(), "big")
    with np.errstate(over="ignore"):
        z = np.asarray(keys, np.int64).astype(np.uint64) ^ np.uint64(seed)
        z = z + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    test = (z % np.uint64(TEST_SHARE)) == 0
    numbers: NDArray[np.int64] = test.astype(np.int64)  # 1: test (SPLITS' order)
    return numbers


def dataset_row(position: Position) -> dict[str, Any]:
    """A position's row: its export record (`Position.to_record`, `playout_odds` left out: `playout`
    holds the same), `move_value` and `move_remoteness` over the cells (the mover's score after each
    legal move, 1 win, 0 draw, -1 loss, and the plies left after it; null at an occupied cell and on
    a finished board), and its `split`: the definition `write_dataset`'s arrays are held to."""
    record = position.to_record()
    del record["playout_odds"]
    values: list[int | None] = [None] * position.game.cells
    remoteness: list[int | None] = [None] * position.game.cells
    for move in position.moves:
        values[move.move] = value_score(move.value)
        remoteness[move.move] = move.remoteness
    return record | {
        "move_value": values,
        "move_remoteness": remoteness,
        "split": split_of(position.game, position.canonical),
    }


def arrow_schema() -> pa.Schema:
    import pyarrow as pa

    small, moves = pa.int8(), pa.list_(pa.int8())
    return pa.schema(
        [
            ("board", pa.string()),
            ("to_move", pa.string()),
            ("status", pa.string()),
            ("score", small),
            ("value", pa.string()),
            ("remoteness", small),
            ("sv_score", small),
            ("best_moves", moves),
            ("best_moves_shortest", moves),
            ("playout", pa.list_(pa.float64())),
            ("paths", pa.int64()),
            ("canonical", pa.string()),
            ("depth", small),
            ("first", pa.string()),
            ("score_viewpoint", pa.string()),
            ("value_viewpoint", pa.string()),
            ("orbit", pa.int16()),
            ("game", pa.string()),
            ("move_value", moves),
            ("move_remoteness", moves),
            ("split", pa.string()),
        ]
    )


@dataclass
class DatasetSummary:
    """What `write_dataset` wrote: rows and classes per split, positions by value, the files."""

    game: Game
    folder: Path
    mode: RowMode
    rows: dict[str, int] = field(default_factory=lambda: dict.fromkeys(SPLITS, 0))
    classes: dict[str, int] = field(default_factory=lambda: dict.fromkeys(SPLITS, 0))
    values: dict[str, int] = field(default_factory=dict)
    digest: str | None = None

    @property
    def files(self) -> list[Path]:
        return [self.folder / f"{split}.parquet" for split in SPLITS] + [self.folder / CARD]


def refuse_foreign_card(folder: Path) -> None:
    """InputError when the folder holds a README.md that ttt-db did not write."""
    card = folder / CARD
    if card.exists() and CARD_MARK not in card.read_text(encoding="utf-8", errors="replace"):
        raise InputError(str(folder), f"its {CARD} is not a card ttt-db wrote: give a folder of its own")


def write_dataset(
    blocks: Iterable[RowBlock],
    folder: Path,
    game: Game,
    *,
    mode: RowMode,
    digest: str | None = None,
    counted: Callable[[int], None] | None = None,
) -> DatasetSummary:
    """`train.parquet`, `test.parquet` and the card (README.md) in `folder` (made if missing; a
    foreign README.md is refused first), each written beside its name and moved into place, from
    the rows of `blocks` (`ttt_db.outputs.export_rows`) as record batches built column by column,
    each row what `dataset_row` makes of its position; `counted(n)` is told after each block."""
    import numpy as np

    refuse_foreign_card(folder)
    folder.mkdir(parents=True, exist_ok=True)
    columns = RecordBatches(game)
    summary = DatasetSummary(game, folder, mode=mode, digest=digest)
    temporary = {split: folder / f".{split}.parquet.{os.getpid()}.tmp" for split in SPLITS}
    writers = {split: _SplitWriter(parquet_writer(temporary[split], columns.schema)) for split in SPLITS}
    try:
        for block in blocks:
            test = splits_of(game, block.class_keys)
            trains = block.rows - int(test.sum())
            ordered = block if trains in (0, block.rows) else block.taken(np.argsort(test, kind="stable"))
            canonical = ordered.canonical  # train rows first, then test, each in the block's order
            for split, rows in (("train", slice(0, trains)), ("test", slice(trains, block.rows))):
                if rows.start == rows.stop:
                    continue
                part = ordered if rows.stop - rows.start == block.rows else ordered.taken(rows)
                writers[split].write(columns.batch(part, split))
                summary.rows[split] += part.rows
                summary.classes[split] += int(canonical[rows].sum())
            for value, found in columns.counted_values(block.codes).items():
                summary.values[value] = summary.values.get(value, 0) + found
            if counted is not None:
                counted(block.rows)
        for writer in writers.values():
            writer.close()
        for split in SPLITS:
            os.replace(temporary[split], folder / f"{split}.parquet")
        (folder / CARD).write_text(card_text(summary), encoding="utf-8")
    finally:
        for writer in writers.values():
            writer.abandon()
        for split in SPLITS:
            temporary[split].unlink(missing_ok=True)
    return summary


def parquet_writer(path: Path, schema: pa.Schema) -> pq.ParquetWriter:
    """A Parquet file at `path` written as the data set's are: zstd, the columns of few values
    (`DICTIONARY_COLUMNS`) as dictionaries, no statistics."""
    import pyarrow.parquet as pq

    return pq.ParquetWriter(
        path, schema, compression="zstd", use_dictionary=list(DICTIONARY_COLUMNS), write_statistics=False
    )


class _SplitWriter:
    """A split's Parquet writer, writing on a thread of its own (pyarrow's writer releases the GIL)
    while the next batches are made: at most WAITING batches wait, in order."""

    WAITING: Final = 2

    def __init__(self, writer: pq.ParquetWriter) -> None:
        from concurrent.futures import ThreadPoolExecutor

        self.writer = writer
        self.thread = ThreadPoolExecutor(1)
        self.waiting: deque[Future[None]] = deque()

    def write(self, batch: pa.RecordBatch) -> None:
        """Write `batch` after those before it; an error of an earlier write is raised here."""
        while len(self.waiting) >= self.WAITING:
            self.waiting.popleft().result()
        self.waiting.append(self.thread.submit(self.writer.write_batch, batch))

    def close(self) -> None:
        """Every batch written and the file closed; the first error raised (the rest abandoned)."""
        try:
            while self.waiting:
                self.waiting.popleft().result()
        except BaseException:
            self.abandon()
            raise
        self.thread.shutdown(wait=True)
        self.writer.close()

    def abandon(self) -> None:
        """Give the file up: batches not begun dropped, the one being written let finish, the file
        closed, errors not raised (the first was, or the export is being stopped); again, nothing."""
        for waiting in self.waiting:
            waiting.cancel()
        self.waiting.clear()
        self.thread.shutdown(wait=True)
        with contextlib.suppress(Exception):
            self.writer.close()


class RecordBatches:
    """A block's rows as one record batch of `arrow_schema`'s columns: per-code fields from tables
    of the 256 codes (`value_fields`), move lists from cell masks, every move's value and remoteness
    from its worth (`move_of_worth`), odds and paths from the level's extras."""

    def __init__(self, game: Game) -> None:
        import numpy as np

        self.game = game
        self.tables: dict[int, dict[str, pa.Array]] = {}
        worth_score = np.zeros(256, np.int8)
        worth_after = np.zeros(256, np.int8)
        for worth in range(1, 256):
            rank, after = move_of_worth(worth)
            if rank >= len(VALUES):
                continue  # no move has it
            worth_score[worth] = value_score(VALUES[rank])
            worth_after[worth] = after
        self.worth_score, self.worth_after = worth_score, worth_after
        self.value_names = ["" if own is None else own[0] for own in map(value_of_code, range(256))]
        self.schema = arrow_schema()

    def counted_values(self, codes: NDArray[np.uint8]) -> dict[str, int]:
        """Rows by value (`value_of_code`; "" for a code that holds none), from their codes."""
        import numpy as np

        found: dict[str, int] = {}
        for code, rows in enumerate(np.bincount(codes, minlength=256).tolist()):
            if rows:
                name = self.value_names[code]
                found[name] = found.get(name, 0) + rows
        return found

    def _code_tables(self, depth: int) -> dict[str, pa.Array]:
        import pyarrow as pa

        found = self.tables.get(depth)
        if found is None:
            fields = [
                None if own is None else value_fields(self.game, depth, own) for own in map(value_of_code, range(256))
            ]
            found = self.tables[depth] = {
                key: pa.array([None if row is None else row[key] for row in fields], kind)
                for key, kind in (
                    ("to_move", pa.string()),
                    ("status", pa.string()),
                    ("score", pa.int8()),
                    ("value", pa.string()),
                    ("remoteness", pa.int8()),
                    ("sv_score", pa.int8()),
                )
            }
        return found

    def batch(self, block: RowBlock, split: str) -> pa.RecordBatch:
        """The rows of `block`, all of one split, as a record batch of `arrow_schema`."""
        import numpy as np
        import pyarrow as pa

        rows, n = block.rows, self.game.cells
        codes = pa.array(block.codes)
        by_code = {key: table.take(codes) for key, table in self._code_tables(block.depth).items()}
        extras = None if block.extras is None or block.classes is None else block.extras.values[block.classes]
        every = np.arange(0, 3 * rows + 1, 3, dtype=np.int32)
        playout = (
            pa.nulls(rows, pa.list_(pa.float64()))
            if extras is None or block.extras is None
            else pa.ListArray.from_arrays(pa.array(every), pa.array((extras[:, :3] / block.extras.ways).reshape(-1)))
        )
        paths = pa.nulls(rows, pa.int64()) if extras is None else pa.array(extras[:, 3])
        assert block.worths is not None, "the data set's rows are read with every move's worth"
        worths = block.worths.reshape(-1)
        open_cells = worths == 0
        per_cell = pa.array(np.arange(0, n * rows + 1, n, dtype=np.int32))
        columns = {
            "board": self._boards(block, block.boards[:, 0], block.boards[:, 1]),
            **by_code,
            "best_moves": self._cell_lists(block, block.best),
            "best_moves_shortest": self._cell_lists(block, block.fastest),
            "playout": playout,
            "paths": paths,
            "canonical": self._boards(block, block.boards[:, 2], block.boards[:, 3]),
            "depth": pa.repeat(pa.scalar(block.depth, pa.int8()), rows),
            "first": pa.repeat("o", rows),
            "score_viewpoint": pa.repeat("o", rows),
            "value_viewpoint": pa.repeat(mover_at(block.depth), rows),
            "orbit": pa.array(block.orbits.astype(np.int16)),
            "game": pa.repeat(self.game.name, rows),
            "move_value": pa.ListArray.from_arrays(
                per_cell, pa.array(np.take(self.worth_score, worths), pa.int8(), mask=open_cells)
            ),
            "move_remoteness": pa.ListArray.from_arrays(
                per_cell, pa.array(np.take(self.worth_after, worths), pa.int8(), mask=open_cells)
            ),
            "split": pa.repeat(split, rows),
        }
        return pa.RecordBatch.from_arrays(
            [columns[name].cast(field.type) for name, field in zip(self.schema.names, self.schema, strict=True)],
            schema=self.schema,
        )

    def _boards(self, block: RowBlock, o_cells: NDArray[np.int64], x_cells: NDArray[np.int64]) -> pa.Array:
        """Boards as text from their o's and x's cells."""
        import numpy as np
        import pyarrow as pa

        n, rows = self.game.cells, len(o_cells)
        text = board_chars(block.backend, o_cells | x_cells, o_cells, n)
        offsets = np.arange(0, n * rows + 1, n, dtype=np.int32)
        return pa.StringArray.from_buffers(rows, pa.py_buffer(offsets), pa.py_buffer(text))

    def _cell_lists(self, block: RowBlock, masks: NDArray[np.int64]) -> pa.Array:
        """Each mask's cells, in order, as a list."""
        import pyarrow as pa

        offsets, cells = mask_cell_lists(block.backend, masks, self.game.cells)
        return pa.ListArray.from_arrays(pa.array(offsets), pa.array(cells))


FIELDS_DOCUMENTED: Final = (
    ("board", "the board, cells in reading order (`.` empty), o moved first"),
    ("to_move", "`o` or `x`; null on a finished board"),
    ("status", "`playing`, `o` or `x` (who has won), `draw`"),
    ("score", "from o's side (the first player): 1, 0, -1 with best play"),
    ("value", "for the side to move (on a finished board, the side that would move): `win`, `draw`, `loss`"),
    ("remoteness", "plies to the end with best play (the winner hurrying, the loser delaying)"),
    ("sv_score", "the shortest-victory score, from o's side"),
    ("best_moves", "the cells whose move keeps the value (0 top left, reading order)"),
    ("best_moves_shortest", "of those, the fastest wins or slowest losses"),
    ("playout", "[o wins, x wins, draw] with both sides playing uniformly at random (null over 16 cells)"),
    ("paths", "move sequences from the empty board reaching the board (null over 16 cells)"),
    ("canonical", "the smallest symmetric image: the class (the split is drawn by it)"),
    ("depth", "marks on the board"),
    ("first", "who moved first (always `o` here)"),
    ("score_viewpoint", "the mark `score` is from"),
    ("value_viewpoint", "the mark `value` is for"),
    ("orbit", "boards in the class"),
    ("game", "the m,n,k game"),
    ("move_value", "per cell: the mover's score after moving there (1 win, 0 draw, -1 loss); null if occupied"),
    ("move_remoteness", "per cell: the plies left after moving there; null if occupied"),
    ("split", "`train` or `test`: one class in five is test, by a hash of `canonical`'s base-3 number"),
)


def card_text(summary: DatasetSummary) -> str:
    """The dataset card: the Hugging Face header (licence, splits), then counts, fields,
    viewpoints, the split rule and where the data comes from."""
    game = summary.game
    total = sum(summary.rows.values())
    per_class = summary.mode is RowMode.classes
    unit = "class" if per_class else "position"
    lines = [
        "---",
        "license: cc0-1.0",
        "pretty_name: " + f"{game.name} solved by ttt-db",
        "tags: [game-solving, tic-tac-toe, minimax, tablebase]",
        "configs:",
        "- config_name: default",
        "  data_files:",
        *(f"  - split: {split}\n    path: {split}.parquet" for split in SPLITS),
        "---",
        CARD_MARK,
        "",
        f"# {game.name}: every {'class of positions' if per_class else 'position'}, solved exactly",
        "",
        (
            f"Every class of positions of the {game.rows}x{game.columns} game with {game.k} in a row to win "
            f"({total:,} classes: a board and its rotations and reflections are one class), each once "
            "at its canonical board (`board` equals `canonical`; `orbit` is how many positions it stands for)"
            if per_class
            else f"Every position of the {game.rows}x{game.columns} game with {game.k} in a row to win "
            f"({total:,} positions)"
        )
        + ", with its exact value, remoteness and every move's value, from a "
        f"complete minimax solution (ttt-db {__version__}"
        + (f", database content digest `{summary.digest}`" if summary.digest else "")
        + "). No position is sampled or estimated.",
        "",
        f"| split | {'classes' if per_class else 'positions'} | classes |",
        "| --- | --- | --- |",
        *(f"| {split} | {summary.rows[split]:,} | {summary.classes[split]:,} |" for split in SPLITS),
        "",
        f"Value for the side to move, {unit} by {unit}: "
        + ", ".join(f"{summary.values.get(value, 0):,} {value}" for value in ("win", "draw", "loss"))
        + " (finished boards count as the loss or draw of the side that would move).",
        "",
        "## Fields",
        "",
        "| field | meaning |",
        "| --- | --- |",
        *(f"| `{name}` | {meaning} |" for name, meaning in FIELDS_DOCUMENTED),
        "",
        "## Viewpoints and split",
        "",
        "`score` and `sv_score` are from the first player's side (o), `value`, `remoteness` and the "
        "`move_*` arrays from the side to move's. The split is by class: a board and its rotations "
        "and reflections are always in the same split, so a model cannot meet the test set's boards "
        "turned around in training.",
        "",
        "## Licence",
        "",
        "CC0 1.0: the positions and their values are facts of the game's rules. ttt-db, which "
        "computed them, is MIT-licensed.",
        "",
    ]
    return "\n".join(lines)
