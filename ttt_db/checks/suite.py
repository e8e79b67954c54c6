"""Benchmark suites for agents and LLMs, and their judge: decision positions drawn by difficulty,
each with the exact label of every move (`draw_suite`), and (board, move) answers scored against
the database (`judge_answers`): did the move keep the value, and if not, how much it gave up.

A position's difficulty is how many of its moves keep its value (one is hard, two medium, more
easy); its remoteness and depth say how far the end is. A suite is a list of JSON documents, one a
position, so an LLM harness can stream it; the judge reads answers of the same shape back.
"""

from __future__ import annotations

import heapq
import itertools
import json
import random
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Final

from ttt_db.errors import InputError
from ttt_db.game.board import Board, parse_move
from ttt_db.game.rules import value_score
from ttt_db.game.symmetry import canonical_transform, symmetric_images
from ttt_db.position import Position
from ttt_db.store.database import SolutionDatabase

TIERS: Final = ("hard", "medium", "easy")


def tier_of(keeping: int) -> str:
    """The difficulty of a position by how many of its moves keep its value."""
    return "hard" if keeping == 1 else "medium" if keeping == 2 else "easy"


def keeping_moves(position: Position) -> tuple[int, ...]:
    """The moves that keep the position's value for its mover (the best moves, in any remoteness)."""
    return position.best_moves


def suite_item(position: Position, number: int) -> dict[str, Any]:
    """One position of a suite: the board, who moves, its value and remoteness, its difficulty, and
    every move with its value for the mover, the plies left after it, and whether it keeps the value."""
    kept = keeping_moves(position)
    return {
        "id": number,
        "board": position.cells,
        "first": position.first,
        "to_move": position.to_move,
        "value": position.value,
        "remoteness": position.remoteness,
        "depth": position.depth,
        "tier": tier_of(len(kept)),
        "keeping": len(kept),
        "moves": [
            {
                "move": move.move,
                "name": move.name,
                "value": move.value,
                "remoteness": move.remoteness,
                "keeps": move.move in kept,
            }
            for move in position.moves
        ],
    }


def draw_suite(
    database: SolutionDatabase,
    count: int,
    *,
    seed: int | None = None,
    tiers: Iterable[str] = TIERS,
    progress: Callable[[int, int], None] | None = None,
) -> list[dict[str, Any]]:
    """`count` decision positions drawn with `seed`, as evenly as they allow from each of `tiers`
    (hard, medium, easy), in the order drawn, no two of one class (a rotation or reflection is the
    same position to a player); InputError for a count below 0 or an unknown tier. In one walk of
    the core, each tier's classes are drawn without replacement with a chance in proportion to
    their size (weighted keys, Efraimidis and Spirakis), the `count` first kept per tier; each is
    told at one of its boards, any alike. `progress(levels done, levels)` is told as it goes."""
    import numpy as np

    from ttt_db.ranked.blocks import blocks
    from ttt_db.store.core import ClassMoves, class_moves

    chosen = list(dict.fromkeys(tiers))
    unknown = [tier for tier in chosen if tier not in TIERS]
    if unknown or not chosen:
        raise InputError(",".join(unknown) or "(none)", f"a tier is one of {', '.join(TIERS)}")
    if count < 0:
        raise InputError(str(count), "a suite has 0 positions or more")
    keys = np.random.default_rng(seed)
    kept: dict[str, list[tuple[float, int, ClassMoves]]] = {tier: [] for tier in chosen}  # min-heaps by key
    arrival = itertools.count()
    core, game = database.core, database.game
    for step in core.walk(depths=range(game.cells)) if count else ():
        for block in blocks(core.tables, step, canonical=True, moves=True):
            at = np.asarray(block.selected(2), dtype=np.int64)
            if not len(at) or block.moves is None:
                continue
            keeping = np.bitwise_count(np.asarray(block.moves.best_mask)[at])
            weights = np.asarray(block.weights)[at]
            drawn = np.log(keys.random(len(at))) / weights  # the larger, the earlier drawn
            for tier in chosen:
                heap = kept[tier]
                floor = heap[0][0] if len(heap) >= count else -np.inf
                wanted = np.flatnonzero((_tier_mask(keeping, tier)) & (drawn > floor))
                if not len(wanted):
                    continue
                wanted = wanted[np.argsort(-drawn[wanted], kind="stable")[:count]]
                found = class_moves(core.tables, block, at[wanted].tolist())
                for i, moves in zip(wanted, found, strict=True):
                    entry = (float(drawn[i]), next(arrival), moves)
                    if len(heap) < count:
                        heapq.heappush(heap, entry)
                    elif entry[0] > heap[0][0]:
                        heapq.heapreplace(heap, entry)
        if progress is not None:
            progress(step.depth + 1, game.cells)
    order = {tier: [entry[2] for entry in sorted(heap, reverse=True)] for tier, heap in kept.items()}
    images = random.Random(seed)
    taken: list[Position] = []
    while len(taken) < count and any(order.values()):
        for tier in chosen:
            if order[tier] and len(taken) < count:
                taken.append(_an_image(order[tier].pop(0).position(game), images))
    return [suite_item(position, number) for number, position in enumerate(taken, start=1)]


def _tier_mask(keeping: Any, tier: str) -> Any:
    return keeping == 1 if tier == "hard" else keeping == 2 if tier == "medium" else keeping > 2


def _an_image(position: Position, images: random.Random) -> Position:
    """The canonical position told at one of its class's boards, each alike."""
    board = images.choice(sorted(set(symmetric_images(position.cells, position.game))))
    _, transform = canonical_transform(board, position.game)
    return position.seen_as(board, transform)


@dataclass(frozen=True)
class Verdict:
    """One answer judged: the move's value for the mover against the position's, and the plies it
    gives up where it keeps the value (a slower win, a faster loss)."""

    id: Any
    board: str
    move: int
    kept: bool
    value: str
    move_value: str
    value_lost: int  # 0, 1 or 2: a win to a draw is 1, a win to a loss 2
    plies_lost: int
    tier: str

    def to_document(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "board": self.board,
            "move": self.move,
            "kept": self.kept,
            "value": self.value,
            "move_value": self.move_value,
            "value_lost": self.value_lost,
            "plies_lost": self.plies_lost,
            "tier": self.tier,
        }


def judge_answer(database: SolutionDatabase, board: str, move: int | str, first: str | None, answer_id: Any) -> Verdict:
    """One (board, move) answer against the database, the move a cell index or any text `parse_move`
    takes (`b2`, `1,1`); InputError for a bad board or move."""
    if first not in (None, "o", "x"):
        raise InputError(str(first), "first is o or x")
    parsed = Board.parse(board, "x" if first == "x" else "o" if first == "o" else None, database.game)
    if isinstance(move, str):
        move = parse_move(move, database.game)
    position = database.lookup(parsed)
    if position.to_move is None:
        raise InputError(board, "the game is over on this board: there is no move to judge")
    analysis = next((a for a in position.moves if a.move == move), None)
    if analysis is None:
        raise InputError(str(move), f"not a legal move on {board!r}")
    kept = move in keeping_moves(position)
    value_lost = value_score(position.value) - value_score(analysis.value)
    plies = analysis.remoteness + 1  # the move included, as the position's remoteness counts it
    if not kept:
        plies_lost = 0
    elif position.value == "win":
        plies_lost = plies - position.remoteness
    elif position.value == "loss":
        plies_lost = position.remoteness - plies
    else:
        plies_lost = 0
    return Verdict(
        answer_id,
        position.cells,
        move,
        kept,
        position.value,
        analysis.value,
        value_lost,
        plies_lost,
        tier_of(len(keeping_moves(position))),
    )


def judge_answers(database: SolutionDatabase, records: Iterable[dict[str, Any]]) -> Iterator[Verdict | dict[str, Any]]:
    """Each answer record (`{"board", "move"}`, the move a cell index or name, optionally `"first"`
    and `"id"`) judged, in order; a record that cannot be judged is `{"input", "error"}`, and the
    rest are judged all the same."""
    for record in records:
        try:
            board, move = record.get("board"), record.get("move")
            if not isinstance(board, str) or isinstance(move, bool) or not isinstance(move, int | str):
                shown = json.dumps(record, ensure_ascii=False, default=str)
                raise InputError(shown[:200], 'an answer is {"board": "...", "move": a cell index or name}')
            yield judge_answer(database, board, move, record.get("first"), record.get("id"))
        except InputError as error:
            yield {"input": record, "error": str(error)}


def summary(verdicts: Iterable[Verdict]) -> dict[str, Any]:
    """How many answers kept the value, in all and per tier, and the value and plies given up."""
    rows: dict[str, dict[str, int]] = {}
    for verdict in verdicts:
        for key in ("all", verdict.tier):
            row = rows.setdefault(key, {"answers": 0, "kept": 0, "value_lost": 0, "plies_lost": 0})
            row["answers"] += 1
            row["kept"] += verdict.kept
            row["value_lost"] += verdict.value_lost
            row["plies_lost"] += verdict.plies_lost
    ordered = {key: rows[key] for key in ("all", *TIERS) if key in rows}
    return {key: row | {"share_kept": row["kept"] / row["answers"]} for key, row in ordered.items()}


__all__ = ["TIERS", "Verdict", "draw_suite", "judge_answers", "summary", "tier_of"]
