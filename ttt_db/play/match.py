"""Games between AIs: every move drawn among the mover's candidates, uniformly or by the
probabilities the AI gave.

An AI is asked about each board once per match and its answer remembered (an AI is a function
of the board), so a long match costs a table walk per move.
"""

from __future__ import annotations

import random
import time
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

from ttt_db.ais.calling import answer_at, draw_move
from ttt_db.ais.protocol import AI
from ttt_db.errors import AIMisbehaved, InputError
from ttt_db.game.definition import Game
from ttt_db.game.rules import VALUES, Mark, Status, Value, mover_at, play, result_for, side_to_move, status

Progress = Callable[[int, int], None]
PROGRESS_EVERY = 1000
LOST_KEPT = 10
"""Distinct games AI1 lost kept with their moves, per side (the counts cover them all)."""


@dataclass(frozen=True, slots=True)
class Tally:
    win: int
    loss: int
    draw: int

    @property
    def games(self) -> int:
        return self.win + self.loss + self.draw

    def __add__(self, other: Tally) -> Tally:
        return Tally(self.win + other.win, self.loss + other.loss, self.draw + other.draw)

    def to_dict(self) -> dict[str, int]:
        return {"win": self.win, "loss": self.loss, "draw": self.draw}


@dataclass(frozen=True, slots=True)
class GameRecord:
    moves: tuple[int, ...]
    board: str
    result: Status  # o, x or draw

    def to_dict(self) -> dict[str, Any]:
        return {"moves": list(self.moves), "board": self.board, "result": self.result}


@dataclass(frozen=True, slots=True)
class MatchResult:
    """Results from AI1's side: `as_o` the games it opened, `as_x` those it answered; the first
    games it lost on each side, with their moves (`lost_as_o`, `lost_as_x`, at most LOST_KEPT)."""

    games: int  # per side
    as_o: Tally
    as_x: Tally
    seconds: float
    lost_as_o: tuple[GameRecord, ...] = ()
    lost_as_x: tuple[GameRecord, ...] = ()

    @property
    def total(self) -> Tally:
        return self.as_o + self.as_x

    def to_document(self) -> dict[str, Any]:
        """What `ttt-db match --json` prints: results from AI1's side."""
        return {
            "games": self.games,
            "as_o": self.as_o.to_dict(),
            "as_x": self.as_x.to_dict(),
            "total": self.total.to_dict(),
            "seconds": self.seconds,
            "lost_games": {
                "o": [record.to_dict() for record in self.lost_as_o],
                "x": [record.to_dict() for record in self.lost_as_x],
            },
        }


class MoveTable:
    """Board -> the boards the mover's AI may move to, or the result code (from `hero`'s side)
    once the game is over. Filled lazily; each board asks its AI once."""

    def __init__(self, o_ai: AI, x_ai: AI, hero: Mark, game: Game) -> None:
        self.ais = {"o": o_ai, "x": x_ai}
        self.hero = hero
        self.game = game
        self.table: dict[str, Entry] = {}

    def fill(self, board: str) -> Entry:
        entry: Entry | None = result_for(status(board, self.game), self.hero)
        if entry is None:
            mover = side_to_move(board)
            answer = answer_at(self.ais[mover], board)
            boards = tuple(play(board, m, mover) for m in answer)
            if isinstance(answer, tuple) or len(set(answer.values())) == 1:
                entry = boards
            else:
                entry = Weighted(boards, tuple(accumulate(float(p) for p in answer.values())))
        self.table[board] = entry
        return entry


@dataclass(frozen=True, slots=True)
class Weighted:
    """The boards an AI that answered probabilities may move to, with their cumulative probabilities."""

    boards: tuple[str, ...]
    cumulative: tuple[float, ...]

    def draw(self, at: float) -> str:
        """The board at `at`, a uniform draw in [0, 1)."""
        return self.boards[min(bisect_right(self.cumulative, at * self.cumulative[-1]), len(self.boards) - 1)]


Entry = tuple[str, ...] | Weighted | Value
"""A board's entry: the boards its mover may move to (uniformly, or weighted), or the result."""


def _play_games(
    table: MoveTable, games: int, rng: random.Random, done_before: int, total: int, progress: Progress | None
) -> tuple[Tally, tuple[GameRecord, ...]]:
    """The tally from the hero's side, and the first LOST_KEPT distinct games it lost."""
    counts = dict.fromkeys(VALUES, 0)
    lost: list[GameRecord] = []
    lookup = table.table.get
    fill = table.fill
    draw = rng.random
    empty_board = table.game.empty_board
    for game in range(games):
        board = empty_board
        path = [board] if len(lost) < LOST_KEPT else None
        while True:
            entry = lookup(board)
            if entry is None:
                entry = fill(board)
            if isinstance(entry, str):
                counts[entry] += 1
                if entry == "loss" and path is not None:
                    record = _record(path, table.game)
                    if record not in lost:
                        lost.append(record)
                break
            board = entry[int(draw() * len(entry))] if type(entry) is tuple else entry.draw(draw())  # type: ignore[union-attr]
            if path is not None:
                path.append(board)
        if progress is not None and game % PROGRESS_EVERY == PROGRESS_EVERY - 1:
            progress(done_before + game + 1, total)
    return Tally(counts["win"], counts["loss"], counts["draw"]), tuple(lost)


def _record(path: list[str], game: Game) -> GameRecord:
    """The game that went through the boards of `path`, from the empty board."""
    moves = tuple(
        next(i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b)
        for before, after in zip(path, path[1:], strict=False)
    )
    return GameRecord(moves, path[-1], status(path[-1], game))


def run_match(
    ai1: AI, ai2: AI, games: int, *, game: Game, seed: int | None = None, progress: Progress | None = None
) -> MatchResult:
    """`games` games of `game` with AI1 as o, then `games` with AI1 as x. Raises AIMisbehaved
    if an AI gives an unusable answer."""
    if games < 0:
        raise InputError(str(games), "the number of games must not be negative")
    rng = random.Random(seed)
    started = time.perf_counter()
    as_o, lost_as_o = _play_games(MoveTable(ai1, ai2, "o", game), games, rng, 0, 2 * games, progress)
    as_x, lost_as_x = _play_games(MoveTable(ai2, ai1, "x", game), games, rng, games, 2 * games, progress)
    if progress is not None:
        progress(2 * games, 2 * games)
    return MatchResult(games, as_o, as_x, time.perf_counter() - started, lost_as_o, lost_as_x)


def play_game(o_ai: AI, x_ai: AI, rng: random.Random, game: Game) -> GameRecord:
    """One game, move by move, with the record of the moves."""
    board = game.empty_board
    moves: list[int] = []
    ais = {"o": o_ai, "x": x_ai}
    while (outcome := status(board, game)) == "playing":
        mover = mover_at(len(moves))
        move = draw_move(answer_at(ais[mover], board), rng)
        moves.append(move)
        board = play(board, move, mover)
    return GameRecord(tuple(moves), board, outcome)


__all__ = ["AIMisbehaved", "GameRecord", "MatchResult", "Tally", "play_game", "run_match"]
