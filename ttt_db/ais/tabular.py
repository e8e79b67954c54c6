"""A tabular policy: boards and the move probabilities played at each, as an AI (`table_ai`), read
from a JSON file by `load_ai("q_table.json")` (`load_policy_file`; `ttt-db score q_table.json`).

A board the table does not list is played uniformly at random (as OpenSpiel's tabular policies
start). A table said to be symmetric stands for every image of each board it lists (its moves
carried along); one that is symmetric, said or found so, is measured over the ranked core on every
game up to 20 cells (`CorePolicy.table`), any other board by board.

The file is one JSON object, `{"policy": {BOARD: MOVES, ...}}` with optional `"game"` (the game it
plays, held to the one asked), `"first": "x"` (x moved first on every board, as in OpenSpiel's
boards) and `"symmetric": true`, or the board mapping alone. BOARD is any notation `Board.parse`
reads (by default the side with more marks moved first, o on equal counts; `:x` after a board says
x did); MOVES is `{move: probability}` (a move as a cell index or a name like `b2`, a probability
as a number or a fraction's text such as `"1/3"`), `[[move, probability], ...]`, or a list of
moves played alike.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any, Final

from ttt_db.ais.calling import Policy, probability_of_text, read_policy
from ttt_db.ais.protocol import CorePolicy, NamedAI
from ttt_db.errors import AILoadFailedError, AIMisbehaved, AINotForGameError, InputError, UnknownAIError
from ttt_db.game.board import Board, parse_move
from ttt_db.game.definition import Game
from ttt_db.game.rules import Mark, empty_cells
from ttt_db.game.symmetry import symmetric_images, transform_move
from ttt_db.json_text import read_json

POLICY_FILE_SUFFIX: Final = ".json"
UNIFORM: Final = Fraction(0)
"""The skill of uniform random play (`CorePolicy`): what a table plays where it lists nothing."""


def is_policy_file(spec: str) -> bool:
    """Whether an AI's name is a policy file's path (it ends in .json), not a built-in's name or a
    user's `module:function`."""
    spec = spec.strip()
    return ":" not in spec and spec.lower().endswith(POLICY_FILE_SUFFIX)


def table_ai(entries: Mapping[str, Policy], game: Game, *, symmetric: bool = False, name: str = "table") -> NamedAI:
    """The AI playing `entries` (o-first cells of boards in play -> move probabilities, as
    `read_policy` gives them), uniformly at random elsewhere; with `symmetric`, each entry stands
    for its board's every image too (InputError when two images listed differ). Its CorePolicy
    (measured over the core) when the table is symmetric, said or found so."""
    table = _with_images(entries, game) if symmetric else dict(entries)
    closed = symmetric or _closed_under_symmetry(table, game)

    def play(board: str) -> Policy | tuple[int, ...]:
        found = table.get(board)
        return found if found is not None else empty_cells(board)

    listed = f"{len(entries):,} board{'s' if len(entries) != 1 else ''}"
    summary = f"a table of {listed}{' and their images' if symmetric else ''}, uniformly random elsewhere"
    return NamedAI(
        name,
        play,
        closed,
        summary,
        deterministic=True,
        core_policy=CorePolicy("best", UNIFORM, table) if closed else None,
    )


def load_policy_file(spec: str, game: Game, progress: Progress | None = None) -> NamedAI:
    """The tabular policy of the JSON file at `spec` (see the module) for `game`: UnknownAIError
    when there is no such file, AILoadFailedError naming the entry when it cannot be used. A file
    is read once while it is unchanged (a command checks the name, then loads the AI);
    `progress(entries read, entries)` hears a long read."""
    path = Path(spec.strip()).expanduser()
    try:
        stat = path.stat()
    except OSError as error:
        raise UnknownAIError(spec, f"no policy file there ({error.strerror or error})") from None
    key = (spec.strip(), str(path.resolve()), stat.st_mtime_ns, stat.st_size, game)
    with _LOADED_LOCK:
        found = _LOADED.get(key)
    if found is None:
        found = _loaded(spec.strip(), key[1], game, progress)
        with _LOADED_LOCK:
            _LOADED[key] = found
            while len(_LOADED) > LOADED_FILES:
                del _LOADED[next(iter(_LOADED))]
    return found


Progress = Callable[[int, int], None]
LOADED_FILES: Final = 4
"""Policy files kept read (the latest): a command names a few, and asks for each more than once."""
_LOADED: dict[tuple[str, str, int, int, Game], NamedAI] = {}
_LOADED_LOCK = threading.Lock()


def _loaded(spec: str, path: str, game: Game, progress: Progress | None) -> NamedAI:
    try:
        with open(path, encoding="utf-8-sig") as file:  # a byte-order mark, as some editors write, skipped
            document = read_json(file.read())
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise AILoadFailedError(spec, f"cannot read it as JSON: {error}") from None
    return policy_from_document(document, game, name=spec, progress=progress)


HEADER_KEYS: Final = ("policy", "game", "first", "symmetric")
PROGRESS_ENTRIES: Final = 4096


def policy_from_document(document: object, game: Game, *, name: str, progress: Progress | None = None) -> NamedAI:
    """The tabular policy of a policy file's JSON document (see the module), named `name`:
    AILoadFailedError naming what cannot be used (AINotForGameError for another game's).
    `progress(entries read, entries)` hears every PROGRESS_ENTRIES entries."""
    if not isinstance(document, dict):
        raise AILoadFailedError(name, f"a policy file holds a JSON object, not {type(document).__name__}")
    if "policy" in document:
        header, boards = document, document["policy"]
        unknown = sorted(set(header) - set(HEADER_KEYS))
        if unknown:
            raise AILoadFailedError(name, f"unknown key {unknown[0]!r} (a policy file has {', '.join(HEADER_KEYS)})")
    else:
        header, boards = {}, document
    said_game = header.get("game")
    if said_game is not None and Game.parse(str(said_game)) != game:
        raise AINotForGameError(name, game.name, f"the file says it plays {said_game}")
    first = header.get("first")
    if first not in (None, "o", "x"):
        raise AILoadFailedError(name, f"first is o or x (the mark that moved first on its boards), not {first!r}")
    symmetric = header.get("symmetric", False)
    if not isinstance(symmetric, bool):
        raise AILoadFailedError(name, f"symmetric is true or false, not {symmetric!r}")
    if not isinstance(boards, dict):
        raise AILoadFailedError(name, f"its policy maps boards to moves, not a {type(boards).__name__}")
    entries: dict[str, Policy] = {}
    cells_named: dict[str, int] = {}  # a move's text, read once for the whole file
    for read, (text, moves) in enumerate(boards.items()):
        if progress is not None and read % PROGRESS_ENTRIES == 0:
            progress(read, len(boards))
        try:
            cells, policy = _entry(text, first, moves, game, cells_named)
        except (InputError, AIMisbehaved) as error:
            said = error.reason if isinstance(error, AIMisbehaved) or error.text == text else str(error)
            raise AILoadFailedError(name, f"the entry for board {text!r}: {said}") from None
        if cells in entries and entries[cells] != policy:
            raise AILoadFailedError(name, f"board {text!r} is listed twice with different moves")
        entries[cells] = policy
    if progress is not None:
        progress(len(boards), len(boards))
    try:
        return table_ai(entries, game, symmetric=symmetric, name=name)
    except InputError as error:
        raise AILoadFailedError(name, error.reason) from None


def _entry(text: object, first: Mark | None, moves: Any, game: Game, cells_named: dict[str, int]) -> tuple[str, Policy]:
    """One entry's board (o-first cells) and move probabilities (`cells_named`: the moves' texts read
    so far); InputError or AIMisbehaved."""
    board = Board.parse(str(text), first, game)
    if board.status != "playing":
        raise InputError(str(text), "the game is over there: no move is played")
    cells = board.stored_cells
    if isinstance(moves, dict) and moves:
        pairs: list[tuple[Any, Any]] = [(_move(key, game, cells_named), p) for key, p in moves.items()]
    elif isinstance(moves, list) and moves and all(isinstance(item, list) for item in moves):
        if not all(len(item) == 2 for item in moves):
            raise InputError(json.dumps(moves)[:80], "a pair is [move, probability]")
        pairs = [(_move(move, game, cells_named), p) for move, p in moves]
    elif isinstance(moves, list) and moves:
        pairs = [(_move(move, game, cells_named), Fraction(1, len(moves))) for move in moves]
    else:
        raise InputError(
            json.dumps(moves)[:80], "moves are {move: probability}, [[move, probability], ...] or [move, ...]"
        )
    return cells, read_policy(cells, [(move, _probability(p)) for move, p in pairs])


def _move(key: object, game: Game, cells_named: dict[str, int]) -> int:
    if type(key) is str:
        cell = cells_named.get(key)
        if cell is None:
            cell = cells_named[key] = parse_move(key, game)
        return cell
    if isinstance(key, bool) or not isinstance(key, int):
        raise InputError(repr(key), "a move is a cell index or a name like b2")
    return parse_move(str(key), game)


def _probability(value: object) -> object:
    """A JSON probability as read_policy takes it: a number, or a fraction's text ("1/3")."""
    if isinstance(value, str):
        try:
            return probability_of_text(value)
        except ValueError as error:
            raise InputError(value, f"a probability is a number or a fraction such as 1/3; this is {error}") from None
    return value


def _images(cells: str, policy: Policy, game: Game) -> list[tuple[str, Policy]]:
    """Every image of a board with its moves carried along (transform order)."""
    return [
        (image, dict(sorted((transform_move(move, t, game), p) for move, p in policy.items())))
        for t, image in enumerate(symmetric_images(cells, game))
    ]


def _with_images(entries: Mapping[str, Policy], game: Game) -> dict[str, Policy]:
    """The table with every image of each board listed; InputError when two listed boards are
    images of each other with moves that do not match."""
    found: dict[str, Policy] = {}
    source: dict[str, str] = {}
    for cells, policy in entries.items():
        for image, moved in _images(cells, policy, game):
            if image == cells and moved != policy:
                raise InputError(cells, "the board is its own image by a symmetry its moves do not follow")
            if image in found and found[image] != moved:
                raise InputError(
                    cells,
                    f"it and board {source[image]!r} are images of each other by symmetry but their moves differ",
                )
            found[image] = moved
            source.setdefault(image, cells)
    return found


def _closed_under_symmetry(table: Mapping[str, Policy], game: Game) -> bool:
    """Whether every image of each listed board is listed with its moves carried along."""
    return all(
        table.get(image) == moved for cells, policy in table.items() for image, moved in _images(cells, policy, game)
    )
