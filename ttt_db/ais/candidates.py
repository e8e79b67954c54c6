"""Helpers for bots that choose at random, so that a check sees every move they may play.

A check is exact only when an AI answers with *every* move it might play. A bot that scores the
moves and breaks ties with `random.choice`, or that samples (MCTS, epsilon-greedy), answers with
one move a call. Two ways to give the check the whole set:

- `top_moves(score)`: from a function that scores each legal move, every move with the top score:
  exactly the set a tie-breaking bot draws from. The check then proves what it says for the bot.
- `moves_over_seeds(bot, seeds)`: run a bot that draws from the generator it is given once per
  seed, and answer every move it played. The check then speaks for those seeds only: a move the
  bot plays under another seed, or with another number of playouts, is not examined. The bot is
  handed `random.Random(seed)` by default; `generator=int` hands it the seed itself (a numpy or
  C++ bot seeds its own generator), `generator=numpy.random.default_rng` a numpy generator.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Collection, Iterable
from fractions import Fraction
from typing import Any

from ttt_db.ais.protocol import AI

Score = Callable[[str, int], float]
"""(board, move) -> how good the move is for the side to move; higher is better."""
SeededBot = Callable[[str, Any], int]
"""(board, what `generator` made of a seed: a random.Random by default) -> the one move the bot plays."""


def top_moves(score: Score) -> AI:
    """An AI answering every empty cell whose score is the highest."""

    def play(board: str) -> Collection[int]:
        scored = [(move, score(board, move)) for move, cell in enumerate(board) if cell == "."]
        best = max(value for _, value in scored)
        return [move for move, value in scored if value == best]

    return play


def moves_over_seeds(
    bot: SeededBot, seeds: Iterable[int] = range(32), *, generator: Callable[[int], Any] = random.Random
) -> AI:
    """An AI answering every move `bot` plays at the board over the given seeds (`generator(seed)`
    each: a `random.Random` by default, `int` for the seed itself), so that a check is
    deterministic and sees the bot's spread."""
    chosen = tuple(seeds)

    def play(board: str) -> Collection[int]:
        return sorted({int(bot(board, generator(seed))) for seed in chosen})

    return play


def empirical(moves: Iterable[int]) -> dict[int, Fraction]:
    """Each move with the share of the draws that gave it: a sampling bot's policy as its seeds
    show it."""
    counts = Counter(moves)
    total = sum(counts.values())
    return {move: Fraction(count, total) for move, count in sorted(counts.items())}
