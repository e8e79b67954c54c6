"""A game's solution as a machine-learning data set: every position's export record with its
moves' values and remoteness as arrays over the cells, split into train and test by a hash of
its class (every image of a board on one side), written as Parquet (pyarrow, the `parquet`
extra) with a dataset card beside it: `export --format parquet -o FOLDER`.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from ttt_db import __version__
from ttt_db.errors import InputError
from ttt_db.game.definition import Game
from ttt_db.game.rules import value_score
from ttt_db.store.position import Position

if TYPE_CHECKING:
    import pyarrow as pa

SPLITS: Final = ("train", "test")
TEST_SHARE: Final = 5
"""One class in TEST_SHARE is in the test split (by `split_of`)."""
BATCH_ROWS: Final = 50_000
CARD: Final = "README.md"
CARD_MARK: Final = "<!-- written by ttt-db export --format parquet -->"
"""The card's own line: a README.md without it in the folder is someone else's and never replaced."""


def split_of(game: Game, canonical: str) -> str:
    """The split of a class, by its canonical board: the same on every machine and in every run."""
    digest = hashlib.blake2b(f"ttt-db {game.name} {canonical}".encode(), digest_size=8).digest()
    return "test" if int.from_bytes(digest, "big") % TEST_SHARE == 0 else "train"


def dataset_row(position: Position) -> dict[str, Any]:
    """A position's row: its export record (`Position.to_record`, `playout_odds` left out: `playout`
    holds the same), `move_value` and `move_remoteness` over the cells (the mover's score after each
    legal move, 1 win, 0 draw, -1 loss, and the plies left after it; null at an occupied cell and on
    a finished board), and its `split`."""
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
    positions: Iterable[Position],
    folder: Path,
    game: Game,
    *,
    digest: str | None = None,
    counted: Callable[[int], None] | None = None,
) -> DatasetSummary:
    """`train.parquet`, `test.parquet` and the card (README.md) in `folder` (made if missing; a
    foreign README.md is refused first), each written beside its name and moved into place;
    `counted(n)` is told every BATCH_ROWS rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    refuse_foreign_card(folder)
    folder.mkdir(parents=True, exist_ok=True)
    schema = arrow_schema()
    summary = DatasetSummary(game, folder, digest=digest)
    temporary = {split: folder / f".{split}.parquet.{os.getpid()}.tmp" for split in SPLITS}
    writers = {split: pq.ParquetWriter(temporary[split], schema, compression="zstd") for split in SPLITS}
    pending: dict[str, list[dict[str, Any]]] = {split: [] for split in SPLITS}
    try:
        for position in positions:
            row = dataset_row(position)
            split = row["split"]
            summary.rows[split] += 1
            summary.classes[split] += position.cells == position.canonical
            summary.values[position.value] = summary.values.get(position.value, 0) + 1
            pending[split].append(row)
            if len(pending[split]) == BATCH_ROWS:
                writers[split].write_table(pa.Table.from_pylist(pending[split], schema))
                pending[split] = []
                if counted is not None:
                    counted(BATCH_ROWS)
        for split in SPLITS:
            if pending[split]:
                writers[split].write_table(pa.Table.from_pylist(pending[split], schema))
        for writer in writers.values():
            writer.close()
        for split in SPLITS:
            os.replace(temporary[split], folder / f"{split}.parquet")
        (folder / CARD).write_text(card_text(summary), encoding="utf-8")
    finally:
        for split in SPLITS:
            temporary[split].unlink(missing_ok=True)
    return summary


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
    ("split", "`train` or `test`: one class in five is test, by a hash of `canonical`"),
)


def card_text(summary: DatasetSummary) -> str:
    """The dataset card: the Hugging Face header (licence, splits), then counts, fields,
    viewpoints, the split rule and where the data comes from."""
    game = summary.game
    total = sum(summary.rows.values())
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
        f"# {game.name}: every position, solved exactly",
        "",
        f"Every position of the {game.rows}x{game.columns} game with {game.k} in a row to win "
        f"({total:,} positions), with its exact value, remoteness and every move's value, from a "
        f"complete minimax solution (ttt-db {__version__}"
        + (f", database content digest `{summary.digest}`" if summary.digest else "")
        + "). No position is sampled or estimated.",
        "",
        "| split | positions | classes |",
        "| --- | --- | --- |",
        *(f"| {split} | {summary.rows[split]:,} | {summary.classes[split]:,} |" for split in SPLITS),
        "",
        "Value for the side to move: "
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
