"""Enumerate an m,n,k-game level by level and solve it by minimax, with numpy.

Only canonical positions (the smallest image of each symmetry class, as an integer key: see
`ttt_db.game.definition.Game.key`) are generated and solved; the game tree is never materialised. Each
level holds its positions in ascending key order, with the edges out of its positions in play:
one per (position, empty cell), parent by parent, cells ascending, each pointing at the
canonical child in the next level. Counts over all orientations follow from each class's
orbit size (how many distinct images it has), and tree nodes from `paths`, the number of move
sequences reaching any one board of the class:

    paths(C) * orbit(C) = sum over edges P -> C of paths(P) * orbit(P)

because the moves out of the orbit of P are the images of the moves out of P.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from math import factorial

import numpy as np
import numpy.typing as npt

from ttt_db.game.definition import TICTACTOE, Game
from ttt_db.game.rules import STATUSES, final_score

Progress = Callable[[str, int, int], None]
"""Called as progress(stage, done, total) while a stage runs."""

Ints = npt.NDArray[np.int64]
Keys = Ints
"""Board keys in (depth, key) order: a node list."""
PLAYING, O_WON, X_WON, DRAW = range(len(STATUSES))  # codes: indices in ttt_db.game.rules.STATUSES


@dataclass
class Level:
    """The canonical positions after `depth` moves, ascending by key, solved."""

    depth: int
    keys: Ints
    orbit: Ints  # distinct images of each board under the game's symmetries
    status: Ints  # PLAYING, O_WON, X_WON, DRAW
    paths: Ints = field(default_factory=lambda: np.zeros(0, np.int64))
    edge_parent: Ints = field(default_factory=lambda: np.zeros(0, np.int64))  # index in this level
    edge_move: Ints = field(default_factory=lambda: np.zeros(0, np.int64))
    edge_child: Ints = field(default_factory=lambda: np.zeros(0, np.int64))  # index in the next level
    edge_transform: Ints = field(default_factory=lambda: np.zeros(0, np.int64))  # child = image t of the move
    score: Ints = field(default_factory=lambda: np.zeros(0, np.int64))  # o's side: 1, 0, -1
    sv_score: Ints = field(default_factory=lambda: np.zeros(0, np.int64))
    remoteness: Ints = field(default_factory=lambda: np.zeros(0, np.int64))
    playout: Ints = field(default_factory=lambda: np.zeros((0, 3), np.int64))  # o, x, draw ways


@dataclass
class Solution:
    game: Game
    levels: list[Level]

    @property
    def tree_nodes_by_depth(self) -> list[int]:
        return [int((level.paths * level.orbit).sum()) for level in self.levels]

    @property
    def positions_by_depth(self) -> list[int]:
        return [int(level.orbit.sum()) for level in self.levels]

    @property
    def canonical_by_depth(self) -> list[int]:
        return [len(level.keys) for level in self.levels]


def _ignore_progress(stage: str, done: int, total: int) -> None:
    return None


class Geometry:
    """The game's arithmetic on arrays of keys."""

    def __init__(self, game: Game) -> None:
        self.game = game
        n = game.cells
        self.powers = 3 ** np.arange(n - 1, -1, -1, dtype=np.int64)  # cell i's digit weight
        # image key under transform t = digits @ weights[:, t]; exact in float64 (3^16 < 2^53)
        self.weights = np.array([[3.0 ** (n - 1 - inverse[cell]) for inverse in game.inverses] for cell in range(n)])
        self.lines = np.array(game.lines, dtype=np.int64)

    def digits(self, keys: Ints) -> npt.NDArray[np.uint8]:
        digits: npt.NDArray[np.uint8] = ((keys[:, None] // self.powers) % 3).astype(np.uint8)
        return digits

    def images(self, digits: npt.NDArray[np.uint8]) -> Ints:
        """Every board's key under every transform, one row per board."""
        images: Ints = np.rint(digits @ self.weights).astype(np.int64)
        return images

    def winners(self, digits: npt.NDArray[np.uint8], mark: int) -> npt.NDArray[np.bool_]:
        """Boards on which `mark` (1 o, 2 x) holds a whole line."""
        if len(self.lines) == 0:
            return np.zeros(len(digits), bool)
        won: npt.NDArray[np.bool_] = (digits[:, self.lines] == mark).all(axis=2).any(axis=1)
        return won


def unique_sorted(values: Ints) -> tuple[Ints, Ints]:
    """(the distinct values ascending, each value's index among them): `np.unique(values,
    return_inverse=True)` by one sort, which on NumPy 2.4 is several times faster than its hash."""
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    first = np.empty(len(ordered), bool)
    first[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    inverse = np.empty(len(values), np.int64)
    inverse[order] = np.cumsum(first) - 1
    return ordered[first], inverse


def orbit_sizes(images: Ints) -> Ints:
    ordered = np.sort(images, axis=1)
    sizes: Ints = 1 + (np.diff(ordered, axis=1) != 0).sum(axis=1)
    return sizes


def _expand(geometry: Geometry, level: Level) -> Level:
    """Generate the next level from `level`'s positions in play, and fill in `level`'s edges."""
    n = geometry.game.cells
    mark = 1 if level.depth % 2 == 0 else 2
    playing = np.flatnonzero(level.status == PLAYING)
    digits = geometry.digits(level.keys[playing])
    rows, moves = np.nonzero(digits == 0)  # parent-major, cells ascending
    child_digits = digits[rows]
    child_digits[np.arange(len(rows)), moves] = mark
    images = geometry.images(child_digits)
    transform = images.argmin(axis=1)
    canonical = images[np.arange(len(rows)), transform]
    keys, child_index = unique_sorted(canonical)
    level.edge_parent = playing[rows]
    level.edge_move = moves.astype(np.int64)
    level.edge_child = child_index.astype(np.int64)
    level.edge_transform = transform.astype(np.int64)
    first_edge = np.zeros(len(keys), np.int64)
    first_edge[child_index[::-1]] = np.arange(len(rows))[::-1]
    new_digits = child_digits[first_edge]
    new_images = images[first_edge]
    won = geometry.winners(new_digits, mark)
    full = (new_digits != 0).all(axis=1) if n else np.ones(len(keys), bool)
    status = np.where(won, mark, np.where(full, DRAW, PLAYING)).astype(np.int64)
    return Level(level.depth + 1, keys.astype(np.int64), orbit_sizes(new_images), status)


def _count_paths(level: Level, following: Level) -> None:
    reaching = np.zeros(len(following.keys), np.int64)
    np.add.at(reaching, level.edge_child, level.paths[level.edge_parent] * level.orbit[level.edge_parent])
    following.paths = reaching // following.orbit


def enumerate_game(game: Game, progress: Progress = _ignore_progress) -> list[Level]:
    """Breadth-first from the empty board, one depth at a time, canonical positions only."""
    geometry = Geometry(game)
    empty = np.zeros(1, np.int64)
    status = PLAYING if game.cells else DRAW
    levels = [Level(0, empty, np.ones(1, np.int64), np.array([status], np.int64), paths=np.ones(1, np.int64))]
    while (levels[-1].status == PLAYING).any():
        following = _expand(geometry, levels[-1])
        _count_paths(levels[-1], following)
        levels.append(following)
        progress("enumerate", len(levels) - 1, game.cells)
    return levels


def _solve_finished(game: Game, level: Level) -> None:
    n, depth = game.cells, level.depth
    ways = factorial(n - depth)
    o_won, x_won = level.status == O_WON, level.status == X_WON
    level.score = np.where(o_won, 1, np.where(x_won, -1, 0)).astype(np.int64)
    level.sv_score = np.where(
        o_won,
        final_score("o", depth, shortest=True, cells=n),
        np.where(x_won, final_score("x", depth, shortest=True, cells=n), 0),
    ).astype(np.int64)
    level.remoteness = np.zeros(len(level.keys), np.int64)
    level.playout = np.stack([o_won * ways, x_won * ways, (level.status == DRAW) * ways], axis=1).astype(np.int64)


def _solve_playing(level: Level, following: Level) -> None:
    """Minimax over the edges: the mover keeps the best score, wins fastest and loses slowest."""
    playing = np.flatnonzero(level.status == PLAYING)
    if len(playing) == 0:
        return
    sign = 1 if level.depth % 2 == 0 else -1
    parent = level.edge_parent
    starts = np.flatnonzero(np.r_[True, parent[1:] != parent[:-1]])
    child_score = following.score[level.edge_child] * sign
    child_sv = following.sv_score[level.edge_child] * sign
    child_remoteness = following.remoteness[level.edge_child]
    best = np.maximum.reduceat(child_score, starts)
    level.score[playing] = sign * best
    level.sv_score[playing] = sign * np.maximum.reduceat(child_sv, starts)
    keeping = child_score == np.repeat(best, np.diff(np.r_[starts, len(parent)]))
    fastest = np.minimum.reduceat(np.where(keeping, child_remoteness, 10**6), starts)
    slowest = np.maximum.reduceat(np.where(keeping, child_remoteness, -1), starts)
    level.remoteness[playing] = 1 + np.where(best > 0, fastest, slowest)
    level.playout[playing] = np.add.reduceat(following.playout[level.edge_child], starts, axis=0)


def solve_game(game: Game = TICTACTOE, progress: Progress = _ignore_progress) -> Solution:
    """Every canonical position of `game` solved, deepest first."""
    levels = enumerate_game(game, progress)
    for done, level in enumerate(reversed(levels), start=1):
        _solve_finished(game, level)
        if level.depth + 1 < len(levels):
            _solve_playing(level, levels[level.depth + 1])
        progress("solve", done, len(levels))
    return Solution(game, levels)


@dataclass(frozen=True, slots=True)
class LevelMoves:
    """Per-edge facts of one level, for the rows and lists that name moves."""

    starts: Ints  # first edge of each position in play, in `playing` order
    playing: Ints  # indices of the positions in play
    value_codes: Ints  # per edge, for the mover: 1 win, 0 draw, -1 loss
    child_remoteness: Ints
    best: npt.NDArray[np.bool_]
    best_shortest: npt.NDArray[np.bool_]


def level_moves(level: Level, following: Level | None) -> LevelMoves:
    playing = np.flatnonzero(level.status == PLAYING)
    if following is None or len(playing) == 0:
        empty = np.zeros(0, np.int64)
        return LevelMoves(empty, playing, empty, empty, empty.astype(bool), empty.astype(bool))
    sign = 1 if level.depth % 2 == 0 else -1
    parent = level.edge_parent
    starts = np.flatnonzero(np.r_[True, parent[1:] != parent[:-1]])
    child_score = following.score[level.edge_child]
    child_sv = following.sv_score[level.edge_child]
    return LevelMoves(
        starts,
        playing,
        sign * child_score,
        following.remoteness[level.edge_child],
        child_score == level.score[parent],
        child_sv == level.sv_score[parent],
    )


def decision_mask(level: Level, moves: LevelMoves) -> npt.NDArray[np.bool_]:
    """Positions in play where some move loses value: fewer best moves than legal moves."""
    decision = np.zeros(len(level.keys), bool)
    if len(moves.playing):
        best_counts = np.add.reduceat(moves.best.astype(np.int64), moves.starts)
        move_counts = np.diff(np.r_[moves.starts, len(level.edge_parent)])
        decision[moves.playing] = best_counts < move_counts
    return decision


def all_images(geometry: Geometry, keys: Ints) -> Ints:
    """Every distinct board of the classes of `keys`, ascending."""
    if len(keys) == 0:
        return keys
    return unique_sorted(geometry.images(geometry.digits(keys)).ravel())[0]


def node_lists(solution: Solution) -> dict[str, Keys]:
    """The named lists of board keys the checks iterate, each in (depth, key) order."""
    geometry = Geometry(solution.game)
    parts: dict[str, list[Ints]] = {
        name: [] for name in ("all", "canonical", "playing", "playing_canonical", "decision", "decision_canonical")
    }
    for level in solution.levels:
        following = solution.levels[level.depth + 1] if level.depth + 1 < len(solution.levels) else None
        decision = decision_mask(level, level_moves(level, following))
        playing = level.status == PLAYING
        for name, keys in (("", level.keys), ("playing", level.keys[playing]), ("decision", level.keys[decision])):
            parts[name or "all"].append(all_images(geometry, keys))
            parts[f"{name}_canonical" if name else "canonical"].append(keys)
    return {name: np.concatenate(arrays) if arrays else np.zeros(0, np.int64) for name, arrays in parts.items()}
