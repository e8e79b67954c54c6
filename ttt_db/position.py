"""What the database knows about one board: the `Position` record and its parts."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cache
from typing import Any, Final, TypeVar

from ttt_db.errors import DatabaseDamagedError
from ttt_db.game.board import Board
from ttt_db.game.definition import Game
from ttt_db.game.rules import (
    EMPTY,
    VALUES,
    Mark,
    Status,
    Value,
    best_first,
    empty_cells,
    final_score,
    keeping_and_fastest,
    move_name,
    mover_at,
    opposite_value,
    other,
    play,
    result_for,
    score_seen_by,
    shortest_victory,
    status,
    swap_marks,
    value_score,
)
from ttt_db.game.symmetry import canonical_and_orbit, canonical_board, untransform_move, untransform_moves
from ttt_db.json_text import compact_json

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class MoveAnalysis:
    """One legal move: its value for the player making it and the plies left after it."""

    move: int
    value: Value
    remoteness: int
    game: Game
    _document: dict[str, Any] = field(init=False, repr=False, compare=False)  # to_dict's, made once

    def __post_init__(self) -> None:
        plies, value = self.remoteness + 1, self.value
        outcome = f"wins in {plies}" if value == "win" else f"loses in {plies}" if value == "loss" else "draws"
        document = {"move": self.move, "name": self.name, "value": value, "remoteness": self.remoteness}
        object.__setattr__(self, "_document", document | {"outcome": outcome})

    @property
    def name(self) -> str:
        return move_name(self.move, self.game)

    @property
    def outcome(self) -> str:
        """What the move leads to for the player making it, as every text says it: `wins in 3`,
        `draws`, `loses in 4`, its plies counted from before the move, the move included."""
        outcome: str = self._document["outcome"]
        return outcome

    def to_dict(self) -> dict[str, Any]:
        return dict(self._document)


@dataclass(frozen=True, slots=True)
class Playout:
    """Exact odds of each result when both sides play uniformly at random from the board, kept
    as whole numbers of the `ways` equally likely move orders ((cells - depth)! of them)."""

    o_wins: int
    x_wins: int
    draws: int
    ways: int

    @property
    def o(self) -> Fraction:
        return Fraction(self.o_wins, self.ways)

    @property
    def x(self) -> Fraction:
        return Fraction(self.x_wins, self.ways)

    @property
    def draw(self) -> Fraction:
        return Fraction(self.draws, self.ways)

    def swapped(self) -> Playout:
        """The same odds with o and x exchanged."""
        return Playout(self.x_wins, self.o_wins, self.draws, self.ways)

    def as_floats(self) -> list[float]:
        return [self.o_wins / self.ways, self.x_wins / self.ways, self.draws / self.ways]


def best_first_order(analyses: Iterable[MoveAnalysis]) -> list[MoveAnalysis]:
    """Wins fastest first, then draws, then losses slowest first; ties by index."""
    return sorted(analyses, key=lambda move: (*best_first(move.value, move.remoteness), move.move))


def analyses_of(analyses: Sequence[MoveAnalysis], moves: Iterable[int]) -> list[MoveAnalysis]:
    """The analyses of `moves`, in that order (moves without one are left out)."""
    by_move = {analysis.move: analysis for analysis in analyses}
    return [by_move[move] for move in moves if move in by_move]


def told_together(phrases: Sequence[str]) -> str:
    """`a`, `a or b`, `a, b or c`: alternatives in one phrase (empty for none)."""
    return ", ".join(phrases[:-1]) + " or " + phrases[-1] if len(phrases) > 1 else "".join(phrases)


_PLURAL: Final = {"wins": "win", "loses": "lose", "draws": "draw"}


def moves_told(moves: Sequence[int], analyses: Sequence[MoveAnalysis]) -> str:
    """`0 (a1), which loses in 6` for each move, the moves that lead to the same outcome told
    together: `1 (b1) or 4 (b2), which draw`; a move without an analysis by its index alone."""
    named = {analysis.move: analysis for analysis in analyses}
    groups: dict[str, list[str]] = {}
    for move in moves:
        analysis = named.get(move)
        told = analysis.game.move_label(move) if analysis is not None else str(move)
        groups.setdefault(analysis.outcome if analysis is not None else "", []).append(told)
    parts = []
    for outcome, told_moves in groups.items():
        if outcome and len(told_moves) > 1:
            verb, _, rest = outcome.partition(" ")
            outcome = " ".join(filter(None, (_PLURAL[verb], rest)))
        together = told_together(told_moves)
        parts.append(f"{together}, which {outcome}" if outcome else together)
    return ", or ".join(parts)


@dataclass(frozen=True, slots=True)
class Position:
    """A solved board: a `Board` (with who moved first and its game) and what the database knows
    of it. `score` and `sv_score` are from the side of the player who moved first; `paths` counts
    the move sequences reaching this board, `orbit` its symmetric images."""

    board: Board
    canonical: str
    status: Status
    score: int
    value: Value
    remoteness: int
    sv_score: int
    best_moves: tuple[int, ...]
    best_moves_shortest: tuple[int, ...]
    moves: tuple[MoveAnalysis, ...]
    playout: Playout | None  # None where the database keeps the ranked core alone (over 16 cells)
    paths: int | None
    orbit: int = 1

    @property
    def cells(self) -> str:
        return self.board.cells

    @property
    def first(self) -> Mark:
        return self.board.first

    @property
    def game(self) -> Game:
        return self.board.game

    @property
    def depth(self) -> int:
        return self.board.depth

    @property
    def to_move(self) -> Mark | None:
        """Who moves next, None on a finished board."""
        return self.board.next_player if self.status == "playing" else None

    @property
    def outcome(self) -> str:
        """What the position comes to with best play, in words, as every surface says it (the CLI,
        the notebook and the page show it unchanged): `o wins in 3 plies with best play`, `a draw
        with best play (the board fills in 6 plies)`; a finished game's `x has won` or `a draw`."""
        return outcome_words(self.status, self.next_player, self.value, self.remoteness)

    @classmethod
    def from_core(cls, board: str, game: Game, probe: Callable[[str], tuple[Value, int]]) -> Position:
        """The position of `board` (o first) from the ranked core alone: `probe(board)` gives a
        board's value for its side to move and its remoteness, and every move's value is its
        child's, seen by the mover. Each child in play is held to its own children too, so that no
        move's value is a code that its own moves contradict."""
        position = cls.from_values(board, game, probe(board), _moves_from_core(board, game, probe))
        mover = mover_at(game.cells - board.count(EMPTY))
        for analysis in position.moves:
            child = play(board, analysis.move, mover)
            _held_to_moves(child, game, probe(child), _moves_from_core(child, game, probe))
        return position

    @classmethod
    def from_values(
        cls,
        board: str,
        game: Game,
        own: tuple[Value, int],
        moves: Sequence[tuple[int, Value, int]],
        *,
        canonical: str | None = None,
        orbit: int | None = None,
        board_status: Status | None = None,
        playout: Playout | None = None,
        paths: int | None = None,
        kinds: tuple[tuple[int, ...], tuple[int, ...]] | None = None,
    ) -> Position:
        """The position of `board` (o first) from its value and remoteness for the side to move
        (`own`) and each move's value for the mover and the plies left after it: the best moves,
        the fastest ones, the score and the shortest-victory score follow (the rules
        rules.keeping_and_fastest); DatabaseDamagedError when its own value and remoteness are not
        what its moves give (or, finished, what its end gives). Its canonical board, orbit, status
        and `kinds` (its best moves and the fastest of them, held to `own` already) are derived
        unless given (a bulk reader has them), its odds and paths where kept."""
        depth = game.cells - board.count(EMPTY)
        if board_status is None:
            board_status = status(board, game)
        value, remoteness = own
        if canonical is None or orbit is None:
            canonical, orbit = canonical_and_orbit(board, game)
        known = _known_analyses(game)
        analyses = [known.get(move) or known.setdefault(move, MoveAnalysis(*move, game)) for move in moves]
        keeping, fastest = kinds or _held_to_moves(board, game, own, moves)
        score, sv_score = _scores(board_status, own, depth, game.cells)
        return cls(
            board=Board.known(board, "o", game),
            canonical=canonical,
            status=board_status,
            score=score,
            value=value,
            remoteness=remoteness,
            sv_score=sv_score,
            best_moves=keeping,
            best_moves_shortest=fastest,
            moves=tuple(analyses),
            playout=playout,
            paths=paths,
            orbit=orbit,
        )

    def seen_as(self, board: str, transform: int) -> Position:
        """This canonical position told for `board`, whose image under `transform` it is:
        every move is carried back to `board`'s cells."""
        if transform == 0:
            return self
        game = self.game
        return replace(
            self,
            board=Board.known(board, self.first, game),
            best_moves=untransform_moves(self.best_moves, transform, game),
            best_moves_shortest=untransform_moves(self.best_moves_shortest, transform, game),
            moves=tuple(
                sorted(
                    (replace(a, move=untransform_move(a.move, transform, game)) for a in self.moves),
                    key=lambda a: a.move,
                )
            ),
        )

    @property
    def next_player(self) -> Mark:
        """The side `value` is seen by: the side to move, or on a finished board the side that
        would move next."""
        return mover_at(self.depth, self.first)

    def with_marks_swapped(self) -> Position:
        """The same position told with `o` and `x` exchanged (the other first player)."""
        cells = swap_marks(self.cells)
        return replace(
            self,
            board=Board.known(cells, other(self.first), self.game),
            canonical=canonical_board(cells, self.game),
            status=other(self.status) if self.status in ("o", "x") else self.status,
            playout=None if self.playout is None else self.playout.swapped(),
        )

    @property
    def hinted_moves(self) -> tuple[int, ...]:
        """The moves a hint points at: in a won or lost position the fastest win or the slowest loss
        (`best_moves_shortest`: in a lost one every move keeps the value, so `best_moves` would be
        all of them), in a drawn one every move that keeps the draw."""
        return _hinted(self.value, self.best_moves, self.best_moves_shortest)

    def moves_best_first(self) -> list[MoveAnalysis]:
        """Wins fastest first, then draws, then losses slowest first; ties by index."""
        return best_first_order(self.moves)

    def _repr_html_(self) -> str:
        """The position in a notebook: its value for the side to move, and the board with every
        legal move coloured by its value for the mover, labelled with its outcome, the moves a hint
        points at (`hinted_moves`) ringed."""
        from html import escape

        from ttt_db.game.drawing import board_svg, in_value_colour

        if self.status == "playing":
            head = f"{self.next_player} to move: {in_value_colour(self.value, self.outcome)}"
        else:
            head = escape(self.outcome)
        svg = board_svg(
            self.cells,
            self.game,
            values={move.move: move.value for move in self.moves},
            notes={move.move: move.outcome for move in self.moves},
            rings=dict.fromkeys(self.hinted_moves, self.value),
            winning=self.board.winning_cells,
            title=str(self.board),
        )
        return f"<div><p>{head}</p>{svg}</div>"

    def to_document(self) -> dict[str, Any]:
        """The `best-moves --json` document (docs/json.md): the record, plus `moves`, every legal
        move's value for the player making it, the remoteness after it and the board it makes (in
        the user's marks: a client follows a game by these boards instead of applying rules), and
        its `score` from the first player's side, as the position's own `score` is."""
        mover = self.to_move
        moves: list[dict[str, Any]] = []
        if mover is not None:
            cells, scores = self.cells, _move_scores(self.first, mover)
            moves = [_move_entry(analysis, play(cells, analysis.move, mover), scores) for analysis in self.moves]
        document = self.to_record()
        document["moves"] = moves
        document["hinted_moves"] = list(self.hinted_moves)
        document["winning_line"] = [] if mover is not None else list(self.board.winning_cells)
        document["outcome"] = self.outcome
        return document

    def to_record(self) -> dict[str, Any]:
        """The export record (docs/json.md): the stable keys, then `depth`, `first`, the
        labelled viewpoints (`score_viewpoint`, `value_viewpoint`, `playout_odds`), `orbit` and `game`."""
        board = self.board
        return _record(
            board.cells,
            board.depth,
            board.first,
            self.status,
            (self.score, self.value, self.remoteness, self.sv_score),
            (self.best_moves, self.best_moves_shortest),
            self.playout,
            self.paths,
            (self.canonical, self.orbit),
            board.game.name,
        )


def document_json(
    board: str,
    game: Game,
    own: tuple[Value, int],
    moves: Sequence[tuple[int, Value, int]],
    *,
    canonical: str,
    orbit: int,
    board_status: Status,
    playout: Playout | None = None,
    paths: int | None = None,
    kinds: tuple[tuple[int, ...], tuple[int, ...]] | None = None,
) -> bytes:
    """`compact_json(Position.from_values(...).to_document())` for the same arguments, the same
    bytes, without making the Position or its dicts: a batch's answers (`ttt_db.store.lookups`).
    Each move's entry is its text made once per game, with the board it makes put in."""
    if board_status != "playing":
        position = Position.from_values(
            board,
            game,
            own,
            moves,
            canonical=canonical,
            orbit=orbit,
            board_status=board_status,
            playout=playout,
            paths=paths,
            kinds=kinds,
        )
        return compact_json(position.to_document())
    depth = game.cells - board.count(EMPTY)
    keeping, fastest = kinds or _held_to_moves(board, game, own, moves)
    value, remoteness = own
    best, shortest = compact_json(keeping), compact_json(fastest)
    if playout is None:
        odds = (b"null", b"null", b"null")
    else:
        floats = playout.as_floats()
        odds = (compact_json(floats), compact_json(paths), compact_json(_playout_odds(floats)))
    record = _record_pieces(game, depth, value, remoteness)
    cells = board.encode()
    parts = [  # the record's pieces with its `_VARYING` values between them, in that order
        record[0], cells, record[1], best, record[2], shortest, record[3], odds[0], record[4], odds[1],
        record[5], canonical.encode(), record[6], odds[2], record[7], str(orbit).encode(), record[8],
    ]  # fmt: skip
    mover = mover_at(depth)
    known, mark = _known_entries(game, mover), mover.encode()
    for move in moves:
        before, after = known.get(move) or _entry_texts(known, move, game, mover)
        cell = move[0]
        parts += (before, cells[:cell], mark, cells[cell + 1 :], after)
    parts[-1] = parts[-1][:-1] if moves else parts[-1]  # the last entry's comma
    parts.append(b'],"hinted_moves":')
    parts.append(_hinted(value, best, shortest))
    parts.append(_ending(mover, value, remoteness))
    return b"".join(parts)


_VARYING: Final = (
    "board",
    "best_moves",
    "best_moves_shortest",
    "playout",
    "paths",
    "canonical",
    "playout_odds",
    "orbit",
)
"""The fields of the record of a position in play that its depth, value and remoteness leave open,
in the record's order."""


@cache
def _record_pieces(game: Game, depth: int, value: Value, remoteness: int) -> tuple[bytes, ...]:
    """The compact JSON of `_record` for a position in play at that depth (o first), of that value
    and remoteness, cut around each of its `_VARYING` values (a string's quotes kept outside): the
    pieces `document_json` puts them between. The last ends where its moves begin."""
    score, sv_score = _scores("playing", own := (value, remoteness), depth, game.cells)
    record = _record("", depth, "o", "playing", (score, *own, sv_score), ((), ()), None, None, ("", 0), game.name)
    text = compact_json(record | {key: _BOARD_MARK + key for key in _VARYING})
    pieces: list[bytes] = []
    for key in _VARYING:
        quoted = record[key] == ""  # the board and the canonical board: their quotes stay in the pieces
        marked = compact_json(_BOARD_MARK + key)
        before, text = text.split(marked[1:-1] if quoted else marked, 1)
        pieces.append(before)
    return (*pieces, text[:-1] + b',"moves":[')


@cache
def outcome_words(board_status: Status, mover: Mark, value: Value, remoteness: int) -> str:
    """`Position.outcome` of a position of that status, side to move, value and remoteness."""
    if board_status == "draw":
        return "a draw"
    if board_status != "playing":
        return f"{board_status} has won"
    plies = f"{remoteness} {'ply' if remoteness == 1 else 'plies'}"
    if value == "draw":
        return f"a draw with best play (the board fills in {plies})"
    return f"{mover} {'wins' if value == 'win' else 'loses'} in {plies} with best play"


@cache
def _ending(mover: Mark, value: Value, remoteness: int) -> bytes:
    """A document's last keys after its hinted moves, for a position in play."""
    outcome = compact_json(outcome_words("playing", mover, value, remoteness))
    return b',"winning_line":[],"outcome":' + outcome + b"}"


def _hinted(value: Value, best: T, fastest: T) -> T:
    """The moves a hint points at (`Position.hinted_moves`), from a position's value, its best
    moves and the fastest of them (as tuples, or as their JSON)."""
    return best if value == "draw" else fastest


def _record(
    cells: str,
    depth: int,
    first: Mark,
    board_status: Status,
    told: tuple[int, Value, int, int],
    best: tuple[tuple[int, ...], tuple[int, ...]],
    playout: Playout | None,
    paths: int | None,
    orbit: tuple[str, int],
    game_name: str,
) -> dict[str, Any]:
    """`Position.to_record`'s record, from its parts: `told` (score, value, remoteness, sv_score),
    `best` (best moves, fastest of them), `orbit` (canonical board, orbit size)."""
    next_player = mover_at(depth, first)
    floats = None if playout is None else playout.as_floats()
    score, value, remoteness, sv_score = told
    return {
        "board": cells,
        "to_move": next_player if board_status == "playing" else None,
        "status": board_status,
        "score": score,
        "value": value,
        "remoteness": remoteness,
        "sv_score": sv_score,
        "best_moves": list(best[0]),
        "best_moves_shortest": list(best[1]),
        "playout": floats,
        "paths": paths,
        "canonical": orbit[0],
        "depth": depth,
        "first": first,
        "score_viewpoint": first,
        "value_viewpoint": next_player,
        "playout_odds": None if floats is None else _playout_odds(floats),
        "orbit": orbit[1],
        "game": game_name,
    }


def _playout_odds(floats: list[float]) -> dict[str, float]:
    """The record's `playout_odds`: its `playout` labelled."""
    return {"o": floats[0], "x": floats[1], "draw": floats[2]}


_ENTRIES: dict[tuple[Game, Mark], dict[tuple[int, Value, int], tuple[bytes, bytes]]] = {}
_BOARD_MARK = "@"  # in no board's text


def _known_entries(game: Game, mover: Mark) -> dict[tuple[int, Value, int], tuple[bytes, bytes]]:
    """The texts of every move entry (`to_document`'s) made so far for the game and mover (o
    first), by (move, value, plies after): before and after the board the move makes, the entry's
    comma after it."""
    return _ENTRIES.setdefault((game, mover), {})


def _entry_texts(
    known: dict[tuple[int, Value, int], tuple[bytes, bytes]], move: tuple[int, Value, int], game: Game, mover: Mark
) -> tuple[bytes, bytes]:
    """A move entry's text around its board, made as `to_document` makes the entry, and kept
    (`_known_entries`)."""
    entry = _move_entry(MoveAnalysis(*move, game), _BOARD_MARK, _move_scores("o", mover))
    before, after = compact_json(entry).split(_BOARD_MARK.encode())
    known[move] = (before, after + b",")
    return known[move]


def _move_entry(analysis: MoveAnalysis, board: str, scores: Mapping[Value, int]) -> dict[str, Any]:
    """A move's entry in `to_document`'s `moves`: its analysis, the board it makes, its score
    from the first player's side (`scores`, by the move's value)."""
    entry = analysis.to_dict()
    entry["board"] = board
    entry["score"] = scores[analysis.value]
    return entry


def _scores(board_status: Status, own: tuple[Value, int], depth: int, cells: int) -> tuple[int, int]:
    """The score and the shortest-victory score, from o's side (o first), of a board with `own`
    (value, remoteness) for its side to move."""
    if board_status != "playing":
        return final_score(board_status, depth), final_score(board_status, depth, shortest=True, cells=cells)
    value, remoteness = own
    mover = mover_at(depth)
    return score_seen_by(value_score(value), "o", mover), shortest_victory(value, mover, depth + remoteness, cells)


def value_fields(game: Game, depth: int, own: tuple[Value, int]) -> dict[str, Any]:
    """The fields of the export record (`Position.to_record`) that a held board's value and
    remoteness decide at its depth (o first): `to_move`, `status`, `score`, `value`, `remoteness`,
    `sv_score`. A board without moves ended there: a loss for the side to move (the other has a
    line) or a draw."""
    value, remoteness = own
    mover = mover_at(depth)
    board_status: Status = "playing" if remoteness else "draw" if value == "draw" else other(mover)
    score, sv_score = _scores(board_status, own, depth, game.cells)
    return {
        "to_move": mover if board_status == "playing" else None,
        "status": board_status,
        "score": score,
        "value": value,
        "remoteness": remoteness,
        "sv_score": sv_score,
    }


_ANALYSES: dict[Game, dict[tuple[int, Value, int], MoveAnalysis]] = {}


def _known_analyses(game: Game) -> dict[tuple[int, Value, int], MoveAnalysis]:
    """Every move analysis made so far for the game, by (move, value, plies after): they are
    values, shared by every position that has one (at most 3 x cells x cells of them), so that a
    batch of positions makes and holds few objects."""
    return _ANALYSES.setdefault(game, {})


@cache
def _move_scores(first: Mark, mover: Mark) -> dict[Value, int]:
    """Each value a move can have for `mover`, as a score from `first`'s side."""
    return {value: score_seen_by(value_score(value), first, mover) for value in VALUES}


def _moves_from_core(board: str, game: Game, probe: Callable[[str], tuple[Value, int]]) -> list[tuple[int, Value, int]]:
    """Each move of a board in play with its value for the mover and the plies left after it, from
    its child's code; none for a finished board."""
    if status(board, game) != "playing":
        return []
    mover = mover_at(game.cells - board.count(EMPTY))
    moves = []
    for move in empty_cells(board):
        child_value, child_remoteness = probe(play(board, move, mover))
        moves.append((move, opposite_value(child_value), child_remoteness))
    return moves


def _held_to_moves(
    board: str, game: Game, own: tuple[Value, int], moves: Sequence[tuple[int, Value, int]]
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The best moves and the fastest of them (rules.keeping_and_fastest); DatabaseDamagedError
    when `own` (value, remoteness) is not what the moves give, or, finished, what its end gives."""
    value, remoteness = own
    if moves:
        best, keeping, fastest, plies = keeping_and_fastest(moves)
        if (best, plies + 1) != own:
            raise DatabaseDamagedError(
                f"value {value} in {remoteness}, but its moves give {best} in {plies + 1}", f"board {board!r}"
            )
        return keeping, fastest
    board_status = status(board, game)
    if board_status == "playing" or own != (result_for(board_status, mover_at(game.cells - board.count(EMPTY))), 0):
        raise DatabaseDamagedError(f"value {value} in {remoteness} for a board {board_status}", f"board {board!r}")
    return (), ()
