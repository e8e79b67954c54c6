"""Checking a search trace (docs/trace.md) against the database: every node's value is held to the
exact value by its window. The check reads one line at a time and keeps only the open nodes (at
most one per ply), so its memory stays flat."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import count
from operator import itemgetter
from typing import TYPE_CHECKING, Any, BinaryIO, Final

from ttt_db.errors import InputError, TraceFormatError
from ttt_db.game.definition import DEFAULT_GAME, Game
from ttt_db.game.rules import EMPTY, Mark, mover_at, play, score_seen_by
from ttt_db.json_text import read_json, read_json_fast

if TYPE_CHECKING:
    from ttt_db.store.database import SolutionDatabase

from ttt_db.search.trace import ENTER_FIELDS, FORMAT, SCALES, WIN_SCORE, Enter, json_bound

MAX_VIOLATIONS_KEPT: Final = 100


@dataclass(frozen=True)
class Violation:
    record: int  # line number of the exit event
    node: int
    moves: tuple[int, ...]  # from the trace's root to the node
    board: str
    alpha: float | None
    beta: float | None
    value: float
    exact: int
    rule: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "record": self.record,
            "id": self.node,
            "moves": list(self.moves),
            "board": self.board,
            "alpha": json_bound(self.alpha),
            "beta": json_bound(self.beta),
            "value": self.value,
            "exact": self.exact,
            "rule": self.rule,
        }


@dataclass
class TraceCheck:
    algorithm: str
    board: str
    scale: str
    nodes: int = 0
    checked: int = 0  # nodes held to a rule (estimates are exempt)
    estimates: int = 0
    violations: list[Violation] = field(default_factory=list)
    violation_count: int = 0

    @property
    def ok(self) -> bool:
        return self.violation_count == 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "algorithm": self.algorithm,
            "board": self.board,
            "scale": self.scale,
            "nodes": self.nodes,
            "checked": self.checked,
            "estimates": self.estimates,
            "violations": self.violation_count,
            "failures": [v.to_dict() for v in self.violations],
        }


def exact_from(database: SolutionDatabase) -> Lookup:
    """The exact values `check_trace` holds a trace to, from an open database."""

    def exact(board: str, first: Mark) -> tuple[int, int, int]:
        position = database.lookup(board, first=first)
        return position.score, position.sv_score, position.remoteness

    return exact


def exact_value(scale: str, score: int, sv_score: int, remoteness: int, ply: int) -> int:
    """A position's exact value on `scale`, first player's side, `ply` plies below the root."""
    if scale == "wdl":
        return score
    if scale == "shortest":
        return sv_score
    return 0 if score == 0 else score * (WIN_SCORE - ply - remoteness)


def broken_rule(value: float, exact: int, alpha: float | None, beta: float | None) -> str | None:
    """Which rule a returned value breaks, or None: inside the window (or without one) it must be
    exact; at or below alpha an upper bound (exact <= value); at or above beta a lower bound."""
    if alpha is None or beta is None:
        return None if value == exact else "a node without a window must return the exact value"
    if value <= alpha:
        return None if exact <= value else "a value at or below alpha must be an upper bound (exact <= value)"
    if value >= beta:
        return None if exact >= value else "a value at or above beta must be a lower bound (exact >= value)"
    return None if value == exact else "a value inside the window must be the exact value"


def _record(line: str, number: int) -> dict[str, Any]:
    try:
        record = read_json(line)
    except ValueError as error:
        raise TraceFormatError(number, str(error)) from None
    if not isinstance(record, dict):
        raise TraceFormatError(number, "not a JSON object")
    return record


def _malformed(record: dict[str, Any], number: int, names: tuple[str, ...]) -> TraceFormatError:
    """The first of `names` that is missing or of the wrong kind, as an error."""
    kind = record.get("type", "record")
    for name in names:
        if name not in record:
            return TraceFormatError(number, f"{kind} has no {name!r}")
        value = record[name]
        allowed_none = name in _MAY_BE_NULL
        expected = _KINDS.get(name, (int,))
        if (value is None and not allowed_none) or (
            value is not None and (isinstance(value, bool) or not isinstance(value, expected))
        ):
            return TraceFormatError(number, f"{name!r} is {value!r}")
    return TraceFormatError(number, f"{kind} is not well formed")


_MAY_BE_NULL = frozenset({"parent", "move", "alpha", "beta"})
_KINDS: dict[str, tuple[type, ...]] = {
    "board": (str,),
    "value": (int, float),
    "alpha": (int, float),
    "beta": (int, float),
}
_EXIT_FIELDS = ("id", "value")


VIEWPOINTS: Final = ("first", "mover")
_INFINITIES: Final = {"inf": math.inf, "-inf": -math.inf}


def _bound(value: object, name: str, number: int) -> float | None:
    """A window bound: a number, `"inf"` or `"-inf"` (JSON's own -Infinity is taken too), or null."""
    if value is None:
        return None
    if type(value) is str and value in _INFINITIES:
        return _INFINITIES[value]
    if type(value) in (int, float) and not math.isnan(value):  # type: ignore[arg-type]
        return value  # type: ignore[return-value]
    raise TraceFormatError(number, f'{name!r} is {value!r}: a number, "inf", "-inf" or null')


def _check_step(
    parent: Enter | None, node: int, board: str, ply: int, move: int | None, first: Mark, number: int
) -> None:
    """A root has no move and ply 0; a child is one ply below its parent, and its board is the
    parent's with `move` played by the parent's mover."""
    if parent is None:
        if move is not None or ply != 0:
            raise TraceFormatError(number, f"root node {node} must have ply 0 and move null, not {ply} and {move}")
        return
    if ply != parent.ply + 1:
        raise TraceFormatError(number, f"node {node} is at ply {ply}, its parent {parent.id} at ply {parent.ply}")
    cells = len(parent.board)
    if move is None or not 0 <= move < cells or parent.board[move] != ".":
        raise TraceFormatError(number, f"node {node}'s move {move!r} is not an empty cell of its parent's board")
    after = play(parent.board, move, mover_at(cells - parent.board.count(EMPTY), first))
    if board != after:
        raise TraceFormatError(
            number, f"node {node}'s board {board!r} is not its parent's {parent.board!r} after move {move} ({after!r})"
        )


MAX_RECORD_BYTES: Final = 65_536
"""The longest record check-trace reads (a record of a 16-cell game is about 200 bytes)."""


def trace_lines(stream: BinaryIO) -> Iterator[str]:
    """The records of a trace file, read as bytes one line at a time: TraceFormatError naming the
    record for one that is not UTF-8 or is longer than MAX_RECORD_BYTES, so any file, /dev/zero
    included, is a trace or a malformed one, in flat memory."""
    for number in count(1):
        line = stream.readline(MAX_RECORD_BYTES + 1)
        if not line:
            return
        if len(line) > MAX_RECORD_BYTES:
            raise TraceFormatError(number, f"longer than {MAX_RECORD_BYTES:,} bytes, which no record is")
        try:
            yield line.decode("utf-8")
        except UnicodeDecodeError as error:
            raise TraceFormatError(number, f"not UTF-8 text (byte {error.start + 1})") from None


Lookup = Callable[[str, Mark], tuple[int, int, int]]
"""board, first player -> (score, sv_score, remoteness) from the first player's side."""


def check_trace(lines: Iterable[str], lookup: Lookup, game: Game = DEFAULT_GAME) -> TraceCheck:
    """Hold every node of a trace of `game` (its header's `game`, 3x3k3 when it has none) to the
    exact values `lookup` gives. TraceFormatError for a malformed trace or one of another game;
    InvalidBoardError from `lookup` for a board that is not one."""
    numbered = enumerate(lines, start=1)
    number, line = next(((n, text) for n, text in numbered if text.strip()), (1, ""))
    if not line.strip():
        raise TraceFormatError(1, "the trace is empty; it starts with a header record")
    header = _record(line, number)
    if header.get("type") != "header" or header.get("format") != FORMAT:
        raise TraceFormatError(number, f'the first record must be {{"type": "header", "format": "{FORMAT}", ...}}')
    scale = header.get("scale")
    if scale not in SCALES:
        raise TraceFormatError(number, f"scale {scale!r} is not one of {', '.join(SCALES)}")
    traced_game = header.get("game", DEFAULT_GAME.name)
    if traced_game != game.name:
        raise TraceFormatError(
            number,
            f"the trace is of game {traced_game!r}; check it with --game {traced_game}"
            if isinstance(traced_game, str)
            else f"game {traced_game!r} is not a game name",
        )
    first = header.get("first", "o")
    if first not in ("o", "x"):
        raise TraceFormatError(number, f"first {first!r} is not 'o' or 'x'")
    viewpoint = header.get("viewpoint", "first")
    if viewpoint not in VIEWPOINTS:
        raise TraceFormatError(number, f"viewpoint {viewpoint!r} is not one of {', '.join(VIEWPOINTS)}")
    result = TraceCheck(str(header.get("algorithm", "?")), str(header.get("board", "")), scale)
    stack: list[Enter] = []  # the open nodes, root first
    last_id = -math.inf
    exact_by_board: dict[str, tuple[int, int, int]] = {}
    entered_fields = itemgetter(*ENTER_FIELDS)
    for number, line in numbered:
        try:
            record = read_json_fast(line)  # what it refuses is read below, in its own words
            kind = record["type"]
        except (ValueError, TypeError, KeyError, RecursionError):
            if not line.strip():
                continue
            record = _record(line, number)  # says what is wrong, or reads a record that starts with spaces
            if "type" not in record:
                raise TraceFormatError(number, "a record without a type") from None
            kind = record["type"]
        if kind == "enter":
            try:
                node, parent, board, ply, move, alpha, beta = entered_fields(record)
                if float in (type(node), type(parent), type(ply), type(move), type(alpha), type(beta)):
                    record = _record(line, number)  # read exactly (`read_json_fast`)
                    node, parent, board, ply, move, alpha, beta = entered_fields(record)
            except KeyError:
                raise _malformed(record, number, ENTER_FIELDS) from None
            if (
                type(node) is not int
                or type(ply) is not int
                or type(board) is not str
                or not (move is None or type(move) is int)
            ):
                raise _malformed(record, number, ENTER_FIELDS)
            alpha, beta = _bound(alpha, "alpha", number), _bound(beta, "beta", number)
            if alpha is not None and beta is not None and alpha > beta:
                raise TraceFormatError(number, f"node {node}'s window ({alpha}, {beta}) has alpha above beta")
            if node <= last_id:
                raise TraceFormatError(number, f"node {node} after node {last_id}: ids increase as nodes are entered")
            last_id = node
            expected_parent = stack[-1].id if stack else None
            if parent != expected_parent:
                raise TraceFormatError(
                    number, f"node {node} names parent {parent}, but the open node is {expected_parent}"
                )
            _check_step(stack[-1] if stack else None, node, board, ply, move, first, number)
            stack.append(Enter(node, parent, board, ply, move, alpha, beta))
            result.nodes += 1
        elif kind == "exit":
            node, value = record.get("id"), record.get("value")
            if type(node) is float or type(value) is float:
                record = _record(line, number)  # read exactly, as an entry is
                node, value = record.get("id"), record.get("value")
            if type(node) is not int or type(value) not in (int, float) or not math.isfinite(value):
                raise _malformed(record, number, _EXIT_FIELDS)
            if not stack or stack[-1].id != node:
                raise TraceFormatError(
                    number, f"exit of node {node}, but the open node is {stack[-1].id if stack else 'none'}"
                )
            entered = stack[-1]
            board, ply, alpha, beta = entered.board, entered.ply, entered.alpha, entered.beta
            seen_by = first if viewpoint == "first" else mover_at(len(board) - board.count(EMPTY), first)
            if record.get("estimate") is True:
                result.estimates += 1
            else:
                result.checked += 1
                known = exact_by_board.get(board)
                if known is None:
                    try:
                        known = exact_by_board[board] = lookup(board, first)
                    except InputError as error:
                        raise TraceFormatError(number, f"node {node}: {error}") from None
                exact = score_seen_by(exact_value(scale, *known, ply), seen_by, first)  # the trace's viewpoint
                rule = broken_rule(value, exact, alpha, beta)
                if rule is not None:
                    result.violation_count += 1
                    if len(result.violations) < MAX_VIOLATIONS_KEPT:
                        moves = tuple(entry.move for entry in stack if entry.move is not None)
                        result.violations.append(Violation(number, node, moves, board, alpha, beta, value, exact, rule))
            stack.pop()
        else:
            raise TraceFormatError(number, f"type {kind!r} is not enter or exit")
    if stack:
        raise TraceFormatError(number, f"the trace ends with node {stack[-1].id} still open")
    return result
