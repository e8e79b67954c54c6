"""Calling an AI, which is foreign code: its answer read, validated and sorted, its failures
(an exception, no move, a move off the board or on a taken cell, too slow) turned into an
`AIMisbehaved` naming the board and the line of the user's file that raised."""

from __future__ import annotations

import operator
import random
import re
import signal
import threading
import traceback
from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from math import gcd, isfinite, lcm
from numbers import Real
from pathlib import Path
from typing import Any, Final, SupportsIndex, TypeGuard

from ttt_db.ais.protocol import AI, NamedAI
from ttt_db.errors import AIMisbehaved, DatabaseDamagedError, InputError, StopRequested
from ttt_db.game.board import Board
from ttt_db.game.rules import EMPTY

_PACKAGE_DIR = str(Path(__file__).resolve().parent.parent)  # ttt_db/


def raised_where(error: BaseException) -> str | None:
    """`path:line` of the innermost traceback frame outside this package: the user's own code."""
    outside = [
        frame for frame in traceback.extract_tb(error.__traceback__) if not frame.filename.startswith(_PACKAGE_DIR)
    ]
    return f"{outside[-1].filename}:{outside[-1].lineno}" if outside else None


def misbehaviour(board: str, error: BaseException, doing: str = "raised") -> AIMisbehaved:
    """What the AI did wrong at `board` when it raised `error` (any exception, its own
    KeyboardInterrupt included where that is known to be its own), and where."""
    if isinstance(error, SystemExit):
        return AIMisbehaved(board, f"the AI called sys.exit({error.code!r})", raised_where(error))
    said = f": {error}" if str(error) else ""
    return AIMisbehaved(board, f"the AI {doing} {type(error).__name__}{said}", raised_where(error))


Policy = dict[int, Fraction]
"""An AI's answer at a board as move probabilities: every move it may play with its probability,
exact, summing to 1 (a collection of moves is each of them with the same probability)."""

PROBABILITY_TOLERANCE: Final = 1e-5
"""How far from 1 an AI's probabilities may sum (floats rarely sum to 1 exactly, and a softmax
computed in float32, a network's usual output, misses it by float32's rounding); they are then
scaled to sum to 1 exactly."""


PROBABILITY_DIGITS: Final = 40
"""The most digits a probability written as text may have ("1/3", "0.25"): a text is read exactly,
and a longer one (or one with an exponent, "1e-999999", whose exact value is a number of as many
digits) would cost time and memory without bound."""

PAIRS_PER_CELL: Final = 4
"""How many (move, probability) entries an answer may give per cell of the board: entries for one
move are added up, and each addition of an unlike fraction makes the sum's denominator longer."""

_FRACTION_TEXT: Final = re.compile(r"[+-]?(?:\d+/\d+|\d+(?:\.\d*)?|\.\d+)")


def probability_of_text(text: str, digits: int = PROBABILITY_DIGITS) -> Fraction:
    """A number written as a decimal or a fraction ("0.25", "1/3", " -2 "), exactly; ValueError,
    saying what is wrong (not quoting the text), for any other text, an exponent, a zero
    denominator or more than `digits` digits."""
    written = text.strip()
    if not _FRACTION_TEXT.fullmatch(written):
        raise ValueError("not a number or a fraction such as 1/3 (written without an exponent)")
    if sum(character.isdigit() for character in written) > digits:
        raise ValueError(f"more than {digits} digits")
    try:
        return Fraction(written)
    except ZeroDivisionError:
        raise ValueError("a division by zero") from None


def exact_probability(value: object) -> Fraction:
    """A probability as a bot or a file gives it, exactly: an int or a Fraction as it is, a float
    (numpy's too) at its shortest decimal (`0.1` is 1/10, as written, not the binary fraction
    nearest it), a text by `probability_of_text`; ValueError or TypeError otherwise."""
    if isinstance(value, bool):
        raise TypeError("a truth value, not a number")
    if type(value) is int or type(value) is Fraction:
        return Fraction(value)
    if isinstance(value, str):
        return probability_of_text(value)
    if isinstance(value, float | Real):
        number = float(value)
        if not isfinite(number):
            raise ValueError("not a number" if number != number else "not a finite number")
        return Fraction(repr(number))
    raise TypeError("not a number")


def _answer_of(ai: AI, board: str) -> Collection[int]:
    """The AI's raw answer at `board`; any exception of its own an AIMisbehaved."""
    try:
        return ai(board)
    except (AIMisbehaved, DatabaseDamagedError, StopRequested):  # never the AI's fault
        raise
    except (Exception, SystemExit) as error:  # the AI is foreign code: any exception is its failure
        raise misbehaviour(board, error) from None


def answer_at(ai: AI, board: str) -> tuple[int, ...] | Policy:
    """The AI's answer at `board`, validated: its moves, sorted, or its move probabilities where it
    gave them (a mapping move -> probability, or (move, probability) pairs); AIMisbehaved if
    unusable (a move off the board or taken, a negative, NaN or non-number probability, a sum
    off 1)."""
    answer = _answer_of(ai, board)
    if _gives_probabilities(answer):
        return read_policy(board, answer)
    return _moves_of(board, answer)


def policy_at(ai: AI, board: str) -> Policy:
    """The AI's move probabilities at `board` (`answer_at`): as given, or its moves uniformly."""
    return as_policy(answer_at(ai, board))


@cache
def _shares(moves: int) -> Fraction:
    """One of `moves` equally likely moves' probability (made once: a Fraction costs a gcd)."""
    return Fraction(1, moves)


def as_policy(answer: tuple[int, ...] | Policy) -> Policy:
    """An answer as move probabilities: moves each with the same probability."""
    if isinstance(answer, dict):
        return answer
    share = _shares(len(answer))
    return dict.fromkeys(answer, share)


def _gives_probabilities(answer: object) -> bool:
    if (type(answer) is list or type(answer) is tuple) and answer and type(answer[0]) is int:
        return False  # moves, the usual answer: told apart at once
    if isinstance(answer, Mapping):
        return True
    return (
        isinstance(answer, list | tuple)
        and bool(answer)
        and all(isinstance(item, tuple | list) and len(item) == 2 for item in answer)
    )


def read_policy(board: str, answer: object) -> Policy:
    """Move probabilities read from a mapping or from pairs, checked at `board`, as exact fractions
    summing to 1 (moves with probability 0 left out)."""
    items = answer.items() if isinstance(answer, Mapping) else answer
    given: dict[int, tuple[int, int]] = {}  # a move's probability as (numerator, denominator)
    try:
        pairs = list(items)  # type: ignore[call-overload]
    except (Exception, SystemExit) as error:
        raise misbehaviour(board, error, "raised while its answer was read:") from None
    if len(pairs) > PAIRS_PER_CELL * len(board):
        raise AIMisbehaved(
            board, f"the AI gave {len(pairs):,} probabilities, more than {PAIRS_PER_CELL} per cell of the board"
        )
    for move, probability in pairs:
        if type(move) is not int and not _is_cell_index(move):
            raise AIMisbehaved(board, f"the AI gave a probability to {move!r:.80}, not a cell index")
        cell = move if type(move) is int else operator.index(move)
        if not 0 <= cell < len(board) or board[cell] != EMPTY:
            where = "off the board" if not 0 <= cell < len(board) else f"a cell taken by {board[cell]}"
            raise AIMisbehaved(board, f"the AI gave a probability to {cell}, {where}")
        try:
            exact = exact_probability(probability)
        except (TypeError, ValueError, OverflowError) as error:
            raise AIMisbehaved(board, f"the AI gave move {cell} the probability {probability!r:.80}, {error}") from None
        top, bottom = exact.numerator, exact.denominator
        if top < 0:
            raise AIMisbehaved(board, f"the AI gave move {cell} a negative probability, {probability!r:.80}")
        if cell in given:
            before, below = given[cell]
            top, bottom = before * bottom + top * below, below * bottom
            common_factor = gcd(top, bottom)
            top, bottom = top // common_factor, bottom // common_factor
        given[cell] = (top, bottom)
    # summed as integers over a common denominator: Fractions' arithmetic costs a gcd a step
    common = lcm(*(bottom for _, bottom in given.values()))
    numerator = sum(top * (common // bottom) for top, bottom in given.values())
    if numerator != common and abs(numerator - common) * _TOLERANCE.denominator > _TOLERANCE.numerator * common:
        raise AIMisbehaved(board, f"the AI's probabilities sum to {numerator / common:.12g}, not 1")
    return {  # scaled to sum to 1 exactly
        move: Fraction(top * (common // bottom), numerator) for move, (top, bottom) in sorted(given.items()) if top
    }


_TOLERANCE: Final = Fraction(PROBABILITY_TOLERANCE)


def candidate_moves(ai: AI, board: str) -> tuple[int, ...]:
    """The AI's candidates at `board`, sorted and validated; AIMisbehaved if unusable. The
    answer is read lazily and refused at its first bad move, however long it is; an answer of
    probabilities is the moves it gives a probability above 0."""
    return tuple(answer_at(ai, board))


def _moves_of(board: str, answer: Collection[int]) -> tuple[int, ...]:
    if type(answer) is tuple or type(answer) is list:
        size = len(board)
        ordered = True
        last = -1
        for move in answer:
            if type(move) is not int or not 0 <= move < size or board[move] != EMPTY:
                return _validated(board, answer)
            ordered = ordered and last < move
            last = move
        if not answer:
            raise AIMisbehaved(board, "the AI answered no move")
        if ordered:  # sorted and each once already, as a lookup's moves are
            return answer if type(answer) is tuple else tuple(answer)
        return tuple(sorted(set(answer)))
    return _validated(board, answer)


def _is_cell_index(value: object) -> TypeGuard[SupportsIndex]:
    """Whether an AI's value can be a cell: any integer type (numpy's too), not a truth value."""
    return isinstance(value, SupportsIndex) and not isinstance(value, bool)


def _validated(board: str, answer: object) -> tuple[int, ...]:
    """The slow path of `candidate_moves`: any iterable of any integer type, read one move at
    a time, or say what is wrong with the first move that is."""
    try:
        items = iter(answer)  # type: ignore[call-overload]
    except TypeError as error:
        if raised_where(error) is not None:  # raised by the answer's own __iter__
            raise misbehaviour(board, error, "raised while its answer was read:") from None
        if _is_cell_index(answer):  # one move, an int or numpy's
            move = operator.index(answer)
            raise AIMisbehaved(
                board, f"the AI answered {move}, one move, not a collection of moves: return a list, e.g. [{move}]"
            ) from None
        raise AIMisbehaved(board, f"the AI answered {answer!r:.80}, not a collection of moves") from None
    except StopRequested:
        raise
    except (Exception, SystemExit) as error:
        raise misbehaviour(board, error, "raised while its answer was read:") from None
    moves: set[int] = set()
    while True:
        try:
            item = next(items)
        except StopIteration:
            break
        except StopRequested:
            raise
        except (Exception, SystemExit) as error:  # an answer generator that fails part-way
            raise misbehaviour(board, error, "raised while its answer was read:") from None
        if not _is_cell_index(item):
            raise AIMisbehaved(board, f"the AI answered {item!r:.80}, not a cell index")
        move = operator.index(item)
        if not 0 <= move < len(board):
            raise AIMisbehaved(board, f"the AI answered {move}, off the board (cells are 0-{len(board) - 1})")
        if board[move] != EMPTY:
            raise AIMisbehaved(board, f"the AI answered {move}, a cell taken by {board[move]}")
        moves.add(move)
    if not moves:
        raise AIMisbehaved(board, "the AI answered no move")
    return tuple(sorted(moves))


def answers_ahead(ai: AI) -> bool:
    """Whether the AI answers from another process and is told the boards ahead (`ask_ahead`)."""
    return getattr(ai, "ask_ahead", None) is not None


def ask_ahead(ai: AI, boards: Sequence[str]) -> None:
    """Tell an AI that answers from another process (`ttt_db.ais.isolation`) which boards it
    will be asked next, in order, so that it can work through them without waiting for each
    question; other AIs have nothing to prepare."""
    prepare = getattr(ai, "ask_ahead", None)
    if prepare is not None:
        prepare(boards)


class _NoAnswerInTime(BaseException):
    """Raised inside a slow AI by the timer of `answer_within` (a BaseException, so that the
    AI's own `except Exception` cannot swallow it; a bare `except:` still can)."""


def answer_within(ai: AI, seconds: float) -> AI:
    """The AI with each answer, its reading included, limited to `seconds` of wall time; an
    AI that takes longer fails at that board. Uses SIGALRM, so it runs in the main thread only."""
    if seconds <= 0:
        raise InputError(str(seconds), "a time limit must be a positive number of seconds")

    def limited(board: str) -> Collection[int]:
        with time_limit(board, seconds):
            answer = ai(board)
            return dict(answer) if isinstance(answer, Mapping) else list(answer)  # read within the limit

    return limited


def _expire(signum: int, frame: object) -> None:
    raise _NoAnswerInTime


def keep_time_limits_armed() -> None:
    """For a process that answers board after board under `time_limit` (a user AI's worker): its
    SIGALRM handler installed once, for good, so that each limit only sets and clears its timer."""
    signal.signal(signal.SIGALRM, _expire)


@contextmanager
def time_limit(board: str, seconds: float, late: str | None = None) -> Iterator[None]:
    """Run the block, an AI's answer at `board`, for at most `seconds` of wall time: past it,
    AIMisbehaved at the board saying `late` (by default that it did not answer in time). Uses
    SIGALRM, so it runs in the main thread only; the handler it installs is put back after it
    (`keep_time_limits_armed` leaves it in place)."""
    if threading.current_thread() is not threading.main_thread():
        raise RuntimeError("a per-answer time limit works in the main thread only")
    installs = signal.getsignal(signal.SIGALRM) is not _expire
    previous = signal.signal(signal.SIGALRM, _expire) if installs else None
    try:
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except _NoAnswerInTime:
        raise AIMisbehaved(board, late or f"the AI did not answer within {seconds:g} s") from None
    finally:
        if installs:
            signal.signal(signal.SIGALRM, previous)


@dataclass(frozen=True, slots=True)
class AIMove:
    """An AI's answer at a board: every move it might play, and the one drawn."""

    ai: str
    board: Board
    candidates: tuple[int, ...]
    move: int

    def to_document(self) -> dict[str, Any]:
        """What `/api/ai-move` sends: `{ai, board, first, candidates, move}` (docs/api.md)."""
        return {
            "ai": self.ai,
            "board": self.board.cells,
            "first": self.board.first,
            "candidates": list(self.candidates),
            "move": self.move,
        }


def choose_move(ai: NamedAI, board: Board, rng: random.Random) -> AIMove:
    """`ai`'s candidates at `board` (asked in the database's convention, o first) and one of them
    drawn by `rng` (`draw_move`); AIMisbehaved when its answer is unusable."""
    answer = answer_at(ai.play, board.stored_cells)
    return AIMove(ai.name, board, tuple(answer), draw_move(answer, rng))


def draw_move(answer: tuple[int, ...] | Policy, rng: random.Random) -> int:
    """One move of an answer: uniformly among its moves, or by its probabilities."""
    if isinstance(answer, tuple):
        return rng.choice(answer)
    moves = list(answer)
    return rng.choices(moves, weights=[float(answer[move]) for move in moves])[0]
