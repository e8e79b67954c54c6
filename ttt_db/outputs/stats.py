"""The statistics of a solution, as solvers publish them (GamesmanOne's `analyze`): per depth the
positions and classes by value for the side to move, positions by value and remoteness, the
longest forced win and the slowest loss with a board of each, and how many moves keep the value
at the positions in play. One walk of the core, counted by the level step as it holds each level
to its children (a tallying walk, `ttt_db.ranked.step.LevelTally`), the example boards found in
the level that has them while it is held."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from html import escape
from typing import Any, Final

from ttt_db.game.definition import Game
from ttt_db.game.drawing import VALUE_COLOURS
from ttt_db.game.rules import VALUES, Mark, Value, mover_at, value_rank
from ttt_db.ranked.blocks import blocks
from ttt_db.ranked.codes import DRAW_NOW, LOSS_NOW, value_of_code
from ttt_db.ranked.tables import RankedTables
from ttt_db.ranked.walk import Step
from ttt_db.store.database import SolutionDatabase

CODES = 256
IN_PLAY: Final = {
    code: decoded
    for code in range(1, CODES)
    if code not in (LOSS_NOW, DRAW_NOW) and (decoded := value_of_code(code)) is not None
}
"""Every code a position in play can hold, with its (value, remoteness); LOSS_NOW and DRAW_NOW are
the finished boards'."""


@dataclass(frozen=True)
class DepthStats:
    """One depth (moves made): the positions (classes) by their value for the side to move, the
    finished ones apart."""

    depth: int
    to_move: Mark
    positions: dict[Value, int]  # in play
    classes: dict[Value, int]
    finished: int
    finished_classes: int

    def to_document(self) -> dict[str, Any]:
        return {
            "depth": self.depth,
            "to_move": self.to_move,
            "positions": self.positions,
            "classes": self.classes,
            "finished": self.finished,
            "finished_classes": self.finished_classes,
        }


@dataclass(frozen=True)
class Extreme:
    """The longest forced win or the slowest loss: its remoteness, the depth it is found at, and a
    board of it (its class's representative, o first)."""

    value: Value
    remoteness: int
    depth: int
    board: str

    def to_document(self) -> dict[str, Any]:
        return {"value": self.value, "remoteness": self.remoteness, "depth": self.depth, "board": self.board}


@dataclass(frozen=True)
class SolutionStats:
    game: Game
    depths: list[DepthStats]
    by_remoteness: dict[tuple[Value, int], tuple[int, int]]  # (value, remoteness) -> (positions, classes), in play
    keeping: dict[int, int]  # decision positions (some move loses value) by how many moves keep it
    every_move_keeps: int  # positions in play where every move keeps the value
    longest_win: Extreme | None
    slowest_loss: Extreme | None

    @property
    def in_play(self) -> int:
        return sum(sum(depth.positions.values()) for depth in self.depths)

    @property
    def decision(self) -> int:
        """Positions in play where some move loses value: where a player can go wrong."""
        return sum(self.keeping.values())

    def to_document(self) -> dict[str, Any]:
        """`ttt-db stats --json` (docs/json.md)."""
        return {
            "game": self.game.name,
            "depths": [depth.to_document() for depth in self.depths],
            "by_remoteness": [
                {"value": value, "remoteness": remoteness, "positions": positions, "classes": classes}
                for (value, remoteness), (positions, classes) in sorted(
                    self.by_remoteness.items(), key=lambda item: (-value_rank(item[0][0]), item[0][1])
                )  # a win first, as a player reads values
            ],
            "in_play": self.in_play,
            "decision": self.decision,
            "keeping": {str(count): positions for count, positions in sorted(self.keeping.items())},
            "every_move_keeps": self.every_move_keeps,
            "longest_win": None if self.longest_win is None else self.longest_win.to_document(),
            "slowest_loss": None if self.slowest_loss is None else self.slowest_loss.to_document(),
        }

    def _repr_html_(self) -> str:
        """The statistics in a notebook: a chart of the positions in play per depth by value, and
        the longest forced win."""
        return f"<div><b>{escape(self.game.name)}</b>{depth_chart(self)}</div>"


def depth_chart(stats: SolutionStats, width: int = 480, height: int = 180) -> str:
    """An SVG bar chart: per depth, the positions in play stacked by value for the side to move."""
    tallest = max((sum(depth.positions.values()) for depth in stats.depths), default=0) or 1
    bar = width / max(1, len(stats.depths))
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height + 20}" '
        f'viewBox="0 0 {width} {height + 20}" role="img">'
    ]
    for depth in stats.depths:
        bottom = float(height)
        for value in ("loss", "draw", "win"):
            size = height * depth.positions[value] / tallest
            parts.append(
                f'<rect x="{depth.depth * bar:.1f}" y="{bottom - size:.1f}" width="{bar * 0.8:.1f}" '
                f'height="{size:.1f}" fill="{VALUE_COLOURS[value][0]}"><title>depth {depth.depth}: '
                f"{depth.positions[value]:,} {value} for {depth.to_move}</title></rect>"
            )
            bottom -= size
        parts.append(
            f'<text x="{depth.depth * bar + bar * 0.4:.1f}" y="{height + 14}" font-size="9" '
            f'text-anchor="middle">{depth.depth}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def solution_stats(database: SolutionDatabase, progress: Callable[[int, int], None] | None = None) -> SolutionStats:
    """The statistics of the database's solution, from its core, in one walk: each level's tally
    counted as the level is held, and a board of the longest win or slowest loss found so far
    looked for in the level that first has it while the walk holds it; `progress(levels done,
    levels)` is told after each level."""
    core = database.core
    n = core.tables.cells
    game = database.game
    per_depth = []
    keeping: dict[int, int] = {}
    every_move_keeps = 0
    by_remoteness: dict[tuple[Value, int], tuple[int, int]] = {}
    extremes: dict[Value, Extreme] = {}
    for step in core.walk(tally=True):
        assert step.tally is not None  # a tallying walk's
        kept = step.tally.keeping
        positions, classes = list(step.tally.positions), list(step.tally.classes)
        per_depth.append(_depth_stats(step.depth, positions, classes))
        legal = n - step.depth  # every board of a level has as many moves
        for count in range(legal):
            if kept[count]:
                keeping[count] = keeping.get(count, 0) + kept[count]
        every_move_keeps += kept[legal]
        for code, decoded in IN_PLAY.items():
            if not positions[code]:
                continue
            value, remoteness = decoded
            had = by_remoteness.get(decoded, (0, 0))
            by_remoteness[decoded] = (had[0] + positions[code], had[1] + classes[code])
            known = extremes.get(value)
            if value != "draw" and (known is None or remoteness > known.remoteness):
                extremes[value] = Extreme(value, remoteness, step.depth, _first_board(core.tables, step, code))
        if progress is not None:
            progress(step.depth + 1, n + 1)
    return SolutionStats(
        game,
        per_depth,
        by_remoteness,
        dict(sorted(keeping.items())),
        every_move_keeps,
        extremes.get("win"),
        extremes.get("loss"),
    )


def _depth_stats(depth: int, positions: list[int], classes: list[int]) -> DepthStats:
    by_value = dict.fromkeys(VALUES, 0)
    by_value_classes = dict.fromkeys(VALUES, 0)
    for code, (value, _) in IN_PLAY.items():
        by_value[value] += positions[code]
        by_value_classes[value] += classes[code]
    finished = positions[LOSS_NOW] + positions[DRAW_NOW]
    return DepthStats(
        depth, mover_at(depth), by_value, by_value_classes, finished, classes[LOSS_NOW] + classes[DRAW_NOW]
    )


def _first_board(tables: RankedTables, step: Step, code: int) -> str:
    """The first board of a held level (in its order) with that code: a class's representative."""
    for block in blocks(tables, step, canonical=True, moves=False):
        found = block.first_with_code(code)
        if found is not None:
            return block.boards([found])[0]
    raise AssertionError(f"no board of code {code} at depth {step.depth}, which was counted there")
