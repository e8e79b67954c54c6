"""The strong check: is the AI's every answer at every decision position a best move?

Held level by level: over the ranked core through the level walker (each level held to its
children as it is met, in blocks of boards: decision positions and best moves from the stored codes
of the level and of its children, nothing proportional to the game held but two levels of codes),
or, on a small game read pinned, over the plain table's rows. The database's own AIs answer from
those moves (`NamedAI.core_answer`); any other AI is asked board by board, its boards sent ahead in
batches; one that answers badly (a move off the board or on a taken cell, no move, an exception)
fails at that board, the failure carrying the error. Failures are kept up to the budget's
`failures_kept`, shallowest first; the counts are exact, by depth and by kind.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Final

from ttt_db.ais.calling import ask_ahead, candidate_moves
from ttt_db.checks.budget import CheckBudget
from ttt_db.errors import AIMisbehaved, DatabaseDamagedError
from ttt_db.game.definition import Game
from ttt_db.game.rules import EMPTY, VALUES, side_to_move
from ttt_db.game.symmetry import symmetric_images, transform_move, untransform_moves
from ttt_db.position import MoveAnalysis, analyses_of, moves_told
from ttt_db.store.class_rows import DecisionClass, decision_levels

if TYPE_CHECKING:  # the walks' code loads with the first check, not with the check's result types
    from ttt_db.ais.protocol import NamedAI
    from ttt_db.ranked.blocks import Block
    from ttt_db.ranked.kernels.sets import Ints
    from ttt_db.store.database import SolutionDatabase


@dataclass(frozen=True, slots=True)
class StrongFailure:
    """A decision position where the AI may leave the best moves. `moves` (every legal move's
    value and remoteness for the mover) is filled in from the database by `run_checks`."""

    board: str
    chosen: tuple[int, ...]
    best: tuple[int, ...]
    error: str | None = None
    where: str | None = None
    moves: tuple[MoveAnalysis, ...] = ()

    @property
    def wrong(self) -> tuple[int, ...]:
        """The candidates that are not best moves."""
        return tuple(move for move in self.chosen if move not in self.best)

    @property
    def depth(self) -> int:
        return len(self.board) - self.board.count(EMPTY)

    def analyses(self, moves: Sequence[int]) -> list[MoveAnalysis]:
        return analyses_of(self.moves, moves)

    @property
    def text(self) -> str:
        """The failure in words, as a check's report tells it everywhere (the CLI, the notebook and
        the page show it unchanged): `x to move may play 0 (a1), which loses in 6; best: 1 (b1) or
        4 (b2), which draw`; an AI that failed to answer has its error in place of its moves."""
        best = moves_told(self.best, self.moves) or "no move"
        if self.error is not None:
            where = f" (at {self.where})" if self.where else ""
            return f"{side_to_move(self.board)} to move: {self.error}{where}; best: {best}"
        return f"{side_to_move(self.board)} to move may play {moves_told(self.wrong, self.moves)}; best: {best}"

    def images(self, game: Game) -> list[StrongFailure]:
        """The same failure on each distinct symmetric image of the board, this one included
        (what a symmetric AI does on the images)."""
        seen: dict[str, StrongFailure] = {}
        for transform, image in enumerate(symmetric_images(self.board, game)):
            if image not in seen:
                seen[image] = self.seen_as(image, transform, game)
        return list(seen.values())

    def seen_as(self, image: str, transform: int, game: Game) -> StrongFailure:
        """The same failure told on `image`, the board's image under `transform`: every move
        carried there."""
        return replace(
            self,
            board=image,
            chosen=tuple(sorted(transform_move(move, transform, game) for move in self.chosen)),
            best=tuple(sorted(transform_move(move, transform, game) for move in self.best)),
            moves=tuple(
                sorted(
                    (replace(a, move=transform_move(a.move, transform, game)) for a in self.moves),
                    key=lambda a: a.move,
                )
            ),
        )

    def to_dict(self) -> dict[str, Any]:
        document: dict[str, Any] = {
            "board": self.board,
            "to_move": side_to_move(self.board),
            "chosen": list(self.chosen),
            "best": list(self.best),
        }
        if self.error is not None:
            document["error"] = self.error
            document["where"] = self.where
        document["wrong"] = list(self.wrong)
        if self.moves:
            document["wrong_move_values"] = [analysis.to_dict() for analysis in self.analyses(self.wrong)]
            document["best_move_values"] = [analysis.to_dict() for analysis in self.analyses(self.best)]
        document["text"] = self.text
        return document


FAILURE_KINDS: Final = {
    "error": "the AI failed to answer",
    "win_to_loss": "a win thrown to a loss",
    "win_to_draw": "a win thrown to a draw",
    "draw_to_loss": "a draw thrown to a loss",
    "slower_win": "a slower win",
    "faster_loss": "a faster loss",
}
"""What a strong failure throws away, worst first, and how a report says it: the AI answered
badly ("error"), or its worst wrong move turns the mover's value into a worse one, or with
`--shortest` keeps the value but wins later or loses sooner."""


@dataclass
class StrongResult:
    """The strong check's answer: exact counts over the decision positions it reached (`checked`,
    `failing`, `by_depth`), the shallowest failures up to a limit (`failures`), and, when it stopped
    early (`stopped`), how far it got: every depth below `depth_reached` was checked in full."""

    positions: str  # the node list checked
    shortest: bool
    total: int
    checked: int
    failing: int
    failures: list[StrongFailure] = field(default_factory=list)
    by_depth: dict[int, dict[str, int]] = field(default_factory=dict)  # depth -> kind -> failing positions
    asked: int | None = None  # boards the AI was asked at, when fewer than `checked` (one per orbit)
    stopped: str | None = None  # one of STOP_REASONS when it ended early
    depth_reached: int | None = None  # the level it stopped in
    reached_in_part: bool = True  # some of depth_reached's boards checked (not none of them)

    @property
    def correct(self) -> int:
        return self.checked - self.failing

    @property
    def complete(self) -> bool:
        return self.stopped is None

    @property
    def solved(self) -> bool | None:
        """True or False when proven; None when it stopped early without finding a failure."""
        if self.failing:
            return False
        return True if self.complete else None

    @property
    def by_kind(self) -> dict[str, int]:
        """Failing positions per kind (FAILURE_KINDS), over every depth."""
        totals = dict.fromkeys(FAILURE_KINDS, 0)
        for kinds in self.by_depth.values():
            for kind, count in kinds.items():
                totals[kind] += count
        return {kind: count for kind, count in totals.items() if count}

    def to_dict(self) -> dict[str, Any]:
        return {
            "solved": self.solved,
            "complete": self.complete,
            "stopped": self.stopped,
            "depth_reached": self.depth_reached,
            "reached_in_part": self.reached_in_part if self.stopped is not None else None,
            "correct": self.correct,
            "checked": self.checked,
            "failing": self.failing,
            "total": self.total,
            "positions": self.positions,
            "shortest": self.shortest,
            "asked": self.checked if self.asked is None else self.asked,
            "by_kind": self.by_kind,
            "kind_descriptions": {kind: FAILURE_KINDS[kind] for kind in self.by_kind},
            "by_depth": {str(depth): kinds for depth, kinds in sorted(self.by_depth.items())},
            "failures": [failure.to_dict() for failure in self.failures],
        }


def shallowest_first(failure: StrongFailure) -> tuple[int, str]:
    """The order failures are reported in: by depth, then board."""
    return failure.depth, failure.board


ANNOUNCE_SECONDS: Final = 10.0
"""A check that will ask an AI board by board for longer than this says so before it goes on."""
ANNOUNCE_AFTER: Final = 1.0
"""Seconds of an AI's answers after which its rate is taken for that (or at the first batch's end)."""
BATCH: Final = 64
"""Boards in the first batch asked of a board-by-board AI; later batches take about
BATCH_SECONDS at its rate. The budget is read and progress reported between batches."""
BATCH_SECONDS: Final = 0.25
TOLD_EVERY: Final = 0.01
"""Within a batch, seconds between a board-by-board AI's progress told and the budget read: after
every answer of a slow AI, every so many boards of a fast one (a call per board cost it more than
its answers' validation)."""
MIN_BATCH: Final = 16
MAX_BATCH: Final = 65_536
Progress = Callable[[int, int], None]
"""Called as progress(boards asked, boards to ask)."""


def _no_progress(done: int, total: int) -> None:
    return None


@dataclass
class _Tally:
    """The strong check's running counts and the failures it keeps."""

    kept_limit: int
    checked: int = 0
    failing: int = 0
    failures: list[StrongFailure] = field(default_factory=list)
    by_depth: dict[int, dict[str, int]] = field(default_factory=dict)

    def count(self, depth: int, kind: str, weight: int) -> None:
        """A failing board at `depth` of `kind`, standing for `weight` positions."""
        here = self.by_depth.setdefault(depth, {})
        here[kind] = here.get(kind, 0) + weight
        self.failing += weight

    def ordered(self) -> dict[int, dict[str, int]]:
        """The counts by depth, each depth's kinds in FAILURE_KINDS order."""
        return {
            depth: {kind: kinds[kind] for kind in FAILURE_KINDS if kind in kinds}
            for depth, kinds in sorted(self.by_depth.items())
        }

    @property
    def room(self) -> int:
        return max(0, self.kept_limit - len(self.failures))

    def keep(self, failure: StrongFailure, by_orbit: bool, game: Game) -> None:
        """A failure kept while there is room: where an AI was asked once per class (`by_orbit`),
        on each image of its board."""
        self.failures += failure.images(game)[: self.room] if by_orbit else [failure]


def check_strong_over_core(
    ai: NamedAI,
    database: SolutionDatabase,
    *,
    canonical: bool = False,
    shortest: bool = False,
    progress: Progress | None = None,
    notice: Callable[[str], None] | None = None,
    budget: CheckBudget | None = None,
) -> StrongResult:
    """Hold the AI to the best moves (`shortest`: the fastest) at every decision position of the
    database's game (`canonical`: the canonical ones only), shallowest level first; an AI that
    treats symmetric boards alike is asked at one board of each class, its answer speaking for the
    board's images. The counts are exact; the shallowest failures are kept up to the budget's
    `failures_kept`. When the budget runs out the result says so (`stopped`) and counts what was
    checked. An AI asked board by board is timed on its first batch, and `notice` told how many
    boards it will be asked and about how long that takes at its rate."""
    game = database.game
    budget = budget or CheckBudget()
    budget.start()
    report = progress or _no_progress
    figures = database.meta()["figures"]
    by_orbit = not canonical and ai.one_answer_per_orbit
    at_representatives = canonical or by_orbit
    total = figures["decision_canonical" if canonical else "decision"]
    to_ask = figures["decision_canonical" if at_representatives else "decision"]
    pace = _Pace(ai.name, game, to_ask, report, notice)
    if database.reads_plain_rows:
        return _check_over_class_rows(
            ai, database, figures, canonical=canonical, shortest=shortest, by_orbit=by_orbit, pace=pace, budget=budget
        )
    from ttt_db.ranked.blocks import blocks  # the walk over the core: not loaded for a small game's rows

    if ai.core_answer == "fastest" or (ai.core_answer == "best" and not shortest):
        return _check_own_moves(
            database, canonical=canonical, shortest=shortest, by_orbit=by_orbit, report=report, budget=budget
        )
    tally = _Tally(budget.failures_kept)
    stopped: str | None = None
    depth = 0
    checked_here = 0  # boards of the level checked so far
    report(0, to_ask)
    for step in database.core.walk():
        depth, checked_here = step.depth, tally.checked
        stopped = budget.stop_reason()
        if stopped is not None or depth == game.cells:
            break
        for block in blocks(database.core.tables, step, canonical=at_representatives, moves=True):
            where = block.select(2)
            moves = block.moves
            assert moves is not None
            target = moves.fast_mask if shortest else moves.best_mask
            answers = (
                None if ai.core_answer is None else moves.best_mask if ai.core_answer == "best" else moves.fast_mask
            )
            first = 0
            while first < len(where):
                stopped = budget.stop_reason()
                if stopped is not None:
                    break
                part = where[first : pace.part_end(first, len(where), budget, whole=answers is not None)]
                asked = block.boards_at(part, canonical=canonical) if answers is None else None
                seconds, done = _check_part(
                    ai, block, part, answers, asked, target, at_representatives, by_orbit, tally, budget, pace.answered
                )
                first += done  # fewer than the part where a deadline came inside it
                pace.part_done(done, seconds, budget, whole=answers is not None)
            if stopped is not None:
                break
        if stopped is not None:
            break
    if stopped is None and tally.checked != total:
        raise DatabaseDamagedError(
            f"the meta's {total:,} decision positions, where the core holds {tally.checked:,}", "table ttt_meta"
        )
    name = "decision_canonical" if canonical else "decision"
    return _result(tally, name, total, shortest, stopped, depth, checked_here, pace.asked if by_orbit else None)


def _result(
    tally: _Tally,
    name: str,
    total: int,
    shortest: bool,
    stopped: str | None,
    depth: int,
    checked_here: int,
    asked: int | None,
) -> StrongResult:
    """The strong check's result from its tally: the failures kept shallowest first; where it was
    stopped (`stopped`), at `depth`, with `checked_here` boards checked before that level."""
    tally.failures.sort(key=shallowest_first)
    return StrongResult(
        name,
        shortest,
        total,
        total if stopped is None else tally.checked,
        tally.failing,
        tally.failures,
        tally.ordered(),
        asked=asked,
        stopped=stopped,
        depth_reached=depth if stopped is not None else None,
        reached_in_part=tally.checked > checked_here,
    )


@dataclass
class _Pace:
    """A board-by-board AI's pace: progress after each answer, and what the whole check will take
    at its rate, said once, as soon as its answers have taken ANNOUNCE_AFTER (or a batch has ended)."""

    ai: str
    game: Game
    to_ask: int
    report: Progress
    notice: Callable[[str], None] | None
    asked: int = 0  # boards of the parts done
    asking: float = 0.0  # their seconds
    announced: bool = False
    step_size: int = BATCH  # boards in the next part asked of a board-by-board AI

    def part_end(self, first: int, total: int, budget: CheckBudget, *, whole: bool) -> int:
        """Where the next part of a level's `total` boards from `first` ends: all of them for the
        database's own answers (`whole`), else a batch of about BATCH_SECONDS at the AI's rate; no
        further than the budget leaves."""
        end = total if whole else min(total, first + self.step_size)
        left = budget.left()
        return end if left is None else min(end, first + left)

    def part_done(self, boards: int, seconds: float, budget: CheckBudget, *, whole: bool) -> None:
        """A part of `boards` checked, a board-by-board AI's answers having taken `seconds`:
        spent, reported, and the next batch sized at the AI's rate."""
        budget.spend(boards)
        self.asked += boards
        self.asking += seconds
        self.report(self.asked, self.to_ask)
        if not whole:
            rate = self.asked / max(self.asking, 1e-9)
            self.step_size = min(max(int(rate * BATCH_SECONDS), MIN_BATCH), MAX_BATCH)
            self.announce(self.asked, self.asking)

    def answered(self, done: int, seconds: float) -> None:
        """`done` boards of the part answered in `seconds`."""
        self.report(self.asked + done, self.to_ask)
        if self.asking + seconds >= ANNOUNCE_AFTER:
            self.announce(self.asked + done, self.asking + seconds)

    def announce(self, asked: int, seconds: float) -> None:
        if self.notice is None or self.announced or not asked:
            return
        self.announced = True
        rate = asked / max(seconds, 1e-9)
        if self.to_ask / rate >= ANNOUNCE_SECONDS:
            self.notice(
                f"asking {self.ai} at {self.to_ask:,} decision positions of {self.game}: about "
                f"{_duration(self.to_ask / rate)} at its rate on its first {asked:,} boards ({rate:,.2g} a second)"
            )


def _check_own_moves(
    database: SolutionDatabase,
    *,
    canonical: bool,
    shortest: bool,
    by_orbit: bool,
    report: Progress,
    budget: CheckBudget,
) -> StrongResult:
    """The strong check of an AI answering the database's own moves where they cannot fail the
    target (the best moves held to the best, the fastest to either: the fastest keep the value):
    every level held to its children as the walker reads it, its decision positions counted by the
    rule as it holds them, no board made or asked."""
    figures = database.meta()["figures"]
    name = "decision_canonical" if canonical else "decision"
    to_ask = figures["decision_canonical" if canonical or by_orbit else "decision"]
    checked = asked = 0
    stopped: str | None = None
    depth = 0
    report(0, to_ask)
    for step in database.core.walk():
        depth = step.depth
        stopped = budget.stop_reason()
        if stopped is not None:
            break
        counts = step.counts
        checked += counts.decision_canonical if canonical else counts.decision
        asked += counts.decision_canonical if canonical or by_orbit else counts.decision
        budget.spend(counts.decision_canonical if canonical or by_orbit else counts.decision)
        report(asked, to_ask)
    if stopped is None and checked != figures[name]:
        raise DatabaseDamagedError(
            f"the meta's {figures[name]:,} decision positions, where the core holds {checked:,}", "table ttt_meta"
        )
    total = figures[name]
    return StrongResult(
        name,
        shortest,
        total,
        total if stopped is None else checked,
        0,
        [],
        {},
        asked=asked if by_orbit else None,
        stopped=stopped,
        depth_reached=depth if stopped is not None else None,
        reached_in_part=False,  # a level is counted whole or not at all
    )


def _check_over_class_rows(
    ai: NamedAI,
    database: SolutionDatabase,
    figures: dict[str, Any],
    *,
    canonical: bool,
    shortest: bool,
    by_orbit: bool,
    pace: _Pace,
    budget: CheckBudget,
) -> StrongResult:
    """`check_strong_over_core` on a game small enough that its kernels run interpreted, read
    pinned: its decision classes from the plain table's rows (`ttt_db.store.class_rows`, held to
    their hashes at open) rather than from the core's levels; the same counts, kinds and failures,
    each level's boards in key order; `figures` are the meta's."""
    game = database.game
    name = "decision_canonical" if canonical else "decision"
    at_representatives = canonical or by_orbit
    own = {"best": False, "fastest": True}.get(ai.core_answer or "")  # the database's own answers: fastest?
    cannot_fail = own is True or (own is False and not shortest)  # the fastest keep the best's value
    tally = _Tally(budget.failures_kept)
    stopped: str | None = None
    depth = checked_here = 0
    pace.report(0, pace.to_ask)
    for depth, classes in decision_levels(database.reader, fastest=shortest or own is True):
        checked_here = tally.checked
        stopped = budget.stop_reason()
        if stopped is not None:
            break
        if cannot_fail:  # the database's own moves held to a target they keep: each level counted whole
            orbits = sum(one.orbit for one in classes)
            asked_here = len(classes) if at_representatives else orbits
            tally.checked += orbits if by_orbit else asked_here
            pace.part_done(asked_here, 0.0, budget, whole=True)
            continue
        boards = _class_boards(classes, game, images=not at_representatives)
        first = 0
        while first < len(boards):
            stopped = budget.stop_reason()
            if stopped is not None:
                break
            part = boards[first : pace.part_end(first, len(boards), budget, whole=own is not None)]
            seconds = 0.0
            if own is None:
                answers, errors, seconds = _asked(
                    ai, [board for _, _, board in part], [t for _, t, _ in part], game, budget, pace.answered
                )
                part = part[: len(answers)]
            else:
                answers, errors = [_mask(one.fastest if own else one.best) for one, _, _ in part], {}
            for i, (one, transform, board) in enumerate(part):
                target = _mask(one.fastest if shortest else one.best)
                if answers[i] & ~target or i in errors:
                    moves = one.moves
                    rank_of = {cell: rank for cell, rank, _ in moves}
                    wrong = (rank_of[cell] for cell in _cells_of(answers[i] & ~target, game.cells))
                    kind = _failure_kind(max(rank_of.values()), wrong, errors.get(i))
                    tally.count(depth, kind, one.orbit if by_orbit else 1)
                    if tally.room:
                        failure = _failure(board, transform, answers[i], target, moves, errors.get(i), game)
                        tally.keep(failure, by_orbit, game)
            tally.checked += sum(one.orbit for one, _, _ in part) if by_orbit else len(part)
            first += len(part)
            pace.part_done(len(part), seconds, budget, whole=own is not None)
        if stopped is not None:
            break
    if stopped is None and tally.checked != figures[name]:
        raise DatabaseDamagedError(
            f"the meta's {figures[name]:,} decision positions, where table ttt_positions holds {tally.checked:,}",
            "table ttt_meta",
        )
    return _result(tally, name, figures[name], shortest, stopped, depth, checked_here, pace.asked if by_orbit else None)


def _class_boards(classes: list[DecisionClass], game: Game, *, images: bool) -> list[tuple[DecisionClass, int, str]]:
    """The boards to ask at: each class's canonical board, or (`images`) each of its distinct
    images, with the transform that makes it from the canonical board."""
    if not images:
        return [(one, 0, one.board) for one in classes]
    found = []
    for one in classes:
        seen: set[str] = set()
        for transform, image in enumerate(symmetric_images(one.board, game)):
            if image not in seen:
                seen.add(image)
                found.append((one, transform, image))
        if len(seen) != one.orbit:
            raise DatabaseDamagedError(
                f"class {one.board} has {len(seen)} images, not {one.orbit}", "table ttt_positions"
            )
    return found


def _mask(moves: Iterable[int]) -> int:
    return sum(map(_BIT, moves))


_BIT: Final = (1).__lshift__


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} minutes"
    return f"{seconds / 3600:.1f} hours"


def _cells_of(mask: int, cells: int) -> list[int]:
    """The cells of a mask of moves, in order."""
    found = []
    while mask:
        low = mask & -mask
        found.append(low.bit_length() - 1)
        mask ^= low
    return found


def _check_part(
    ai: NamedAI,
    block: Block,
    part: list[int],
    answers: Ints | None,
    asked: tuple[list[str], list[int]] | None,
    target: Ints,
    at_representatives: bool,
    by_orbit: bool,
    tally: _Tally,
    budget: CheckBudget,
    answered: Callable[[int, float], None],
) -> tuple[float, int]:
    """Hold the AI's answers at the block's slots `part` to the masks `target`: the database's own
    AIs' are `answers`, a board-by-board AI is asked at the boards `asked` (`Block.boards_at`: an AI
    asked once per class, `by_orbit`, at the slot's own board, as good as any of its class). Count
    every failure by kind and keep as many as there is room for, each told at its class's canonical
    board when `at_representatives`, made only for a failure kept. A board-by-board AI is asked no
    further once the budget says stop (each answer is bounded by its time limit: a deadline holds
    within one), and `answered(boards, seconds)` is told after each of its answers. Returns the
    seconds spent waiting for a board-by-board AI's answers and how many of `part` were checked (the
    first ones)."""
    game = block.tables.game
    errors: dict[int, AIMisbehaved] = {}
    boards: list[str] = []
    transforms: list[int] = []
    asking = 0.0
    if answers is not None:
        chosen = [int(answers[j]) for j in part]
    else:
        assert asked is not None, "a board-by-board AI is asked at the part's boards"
        boards, transforms = asked
        chosen, errors, asking = _asked(ai, boards, transforms, game, budget, answered)
        part = part[: len(chosen)]
    moves = block.moves
    assert moves is not None
    cells = game.cells
    for i, j in enumerate(part):
        weight = int(block.weights[j]) if by_orbit else 1
        tally.checked += weight
        wanted = int(target[j])
        if not chosen[i] & ~wanted and i not in errors:
            continue
        worths = moves.worths[j * cells : (j + 1) * cells]  # the backend's array: read a cell at a time
        wrong = (int(worths[cell]) >> 6 for cell in _cells_of(chosen[i] & ~wanted, cells))  # a worth's value rank
        tally.count(block.depth, _failure_kind(int(moves.best[j]) >> 6, wrong, errors.get(i)), weight)
        if tally.room == 0:
            continue
        if answers is None and not by_orbit:  # told at the board it was asked at
            board, image = boards[i], transforms[i]
        else:
            board_of, transform = block.boards_at([j], canonical=at_representatives)
            board, image = board_of[0], transform[0]
        every = _moves_of_worths(worths)
        tally.keep(_failure(board, image, chosen[i], wanted, every, errors.get(i), game), by_orbit, game)
    return asking, len(part)


def _asked(
    ai: NamedAI,
    boards: list[str],
    transforms: list[int],
    game: Game,
    budget: CheckBudget,
    answered: Callable[[int, float], None],
) -> tuple[list[int], dict[int, AIMisbehaved], float]:
    """Ask a board-by-board AI at `boards`, each the image under `transforms[i]` of the board its
    answer is held on: each answer as a mask of moves there (0 where it misbehaved: its error is
    kept by index), and the seconds its answers took. It is asked no further once the budget says
    stop, read before an answer once TOLD_EVERY has passed since it was last read (the answers are
    then fewer than the boards); `answered(boards, seconds)` is told then, and after the last."""
    errors: dict[int, AIMisbehaved] = {}
    chosen: list[int] = []
    play, stop_reason, clock = ai.play, budget.stop_reason, time.perf_counter  # looked up once, not per board
    started = told = clock()
    ask_ahead(play, boards)
    for i, board in enumerate(boards):
        if i and clock() - told >= TOLD_EVERY:
            told = clock()
            answered(i, told - started)
            if stop_reason() is not None:
                break
        try:
            answer = candidate_moves(play, board)
        except AIMisbehaved as error:
            errors[i] = error
            chosen.append(0)
        else:
            if transforms[i]:
                answer = untransform_moves(answer, transforms[i], game)
            chosen.append(_mask(answer))
    seconds = clock() - started
    answered(len(chosen), seconds)
    return chosen, errors, seconds


def _kind_table() -> dict[tuple[int, int], str]:
    """(best value rank, worst wrong move's value rank; 3: none wrong) -> the failure's kind."""
    return {
        (2, 1): "win_to_draw",
        (2, 0): "win_to_loss",
        (1, 0): "draw_to_loss",
        (2, 2): "slower_win",
        (0, 0): "faster_loss",
        **{(best, 3): "error" for best in range(3)},
    }


_KIND_OF: Final = _kind_table()


def _failure_kind(best_rank: int, wrong_ranks: Iterable[int], error: AIMisbehaved | None) -> str:
    """What a failing answer throws away (FAILURE_KINDS): `error`, or by the value rank of the
    board's best move and the worst of the answer's moves outside the target (`wrong_ranks`, read
    only without an error). Counted at every failing board: the ranks come from whatever each
    walk holds, the moves' analyses are made only for a failure kept."""
    if error is not None:
        return "error"
    return _KIND_OF[(best_rank, min(min(wrong_ranks), 3))]


def _moves_of_worths(worths: Sequence[int]) -> tuple[tuple[int, int, int], ...]:
    """Every legal move as (cell, value rank, plies after), from each cell's worth (0: no move)."""
    from ttt_db.ranked.codes import move_of_worth

    return tuple((cell, *move_of_worth(int(w))) for cell, w in enumerate(worths) if w)


def _failure(
    board: str,
    transform: int,
    chosen: int,
    target: int,
    moves: Sequence[tuple[int, int, int]],
    error: AIMisbehaved | None,
    game: Game,
) -> StrongFailure:
    """A failure told at `board`, the image under `transform` of the board whose every legal move
    is `moves` (cell, value rank, plies after) and whose answer (`chosen`) and best moves
    (`target`) are masks."""
    analyses = tuple(
        sorted(
            (
                MoveAnalysis(transform_move(cell, transform, game), VALUES[rank], after, game)
                for cell, rank, after in moves
            ),
            key=lambda analysis: analysis.move,
        )
    )
    answer, best = (
        tuple(sorted(transform_move(cell, transform, game) for cell in _cells_of(mask, game.cells)))
        for mask in (chosen, target)
    )
    if error is not None:
        return StrongFailure(board, (), best, error.reason, error.where, analyses)
    return StrongFailure(board, answer, best, moves=analyses)
