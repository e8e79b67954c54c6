"""The built-in AIs, and loading an AI by name (the protocol is `ttt_db.ais.protocol`'s).

Checks and matches treat an AI as a function of the board: the same board gets the same candidates.
Built-in AIs are made for one game (`load_ai(..., game=...)`); ai14s exists for 3x3k3 only.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any

from ttt_db.ais.calling import probability_of_text
from ttt_db.ais.plugins import file_without_function, load_user_ai
from ttt_db.ais.protocol import AI, CorePolicy, DatabaseAI, DatabaseProvider, NamedAI, graded_odds
from ttt_db.ais.rule_based import ai14s
from ttt_db.ais.tabular import is_policy_file, load_policy_file
from ttt_db.errors import AINotForGameError, UnknownAIError
from ttt_db.game.definition import TICTACTOE, Game
from ttt_db.game.rules import EMPTY, empty_cells, legal_moves
from ttt_db.search.parameters import PARAMETERISED_EXAMPLES, parse_depth, parse_seconds


def ai1s(board: str) -> tuple[int, ...]:
    """The first empty cell in index order."""
    return (board.index(EMPTY),)


def ai2s(board: str) -> tuple[int, ...]:
    """Every legal move: uniformly random play."""
    return empty_cells(board)


Parameter = int | float | Fraction | None
Maker = Callable[[Parameter, "DatabaseProvider | None", Game], AI]


@dataclass(frozen=True, slots=True)
class BuiltinAI:
    name: str  # with `@N` or `@SECONDS` for the parameterised ones
    summary: str
    symmetric: bool
    make: Maker | None  # None: the search of the AI's name, asked for its moves (`search_ai`)
    parameter: type | None = None  # int: a depth; float: seconds
    deterministic: bool = True
    tictactoe_only: bool = False

    def refusal(self, game: Game) -> str | None:
        """Why this AI does not play `game`, or None when it does."""
        if self.tictactoe_only and game != TICTACTOE:
            return f"is a rule set for 3x3k3 (tic-tac-toe), not for {game.name}; abdls@N scores any game's lines"
        return None


def _plain(ai: AI) -> Maker:
    return lambda _parameter, _database, _game: ai


def _from_database(shortest: bool) -> Maker:
    def make(parameter: Parameter, database: DatabaseProvider | None, game: Game) -> AI:
        if database is None:
            raise UnknownAIError("perfect-shortest" if shortest else "perfect", "needs a database")
        perfect = DatabaseAI(database(), shortest)
        return perfect if parameter is None else graded_ai(perfect, Fraction(parameter), game)

    return make


def graded_ai(perfect: AI, skill: Fraction, game: Game) -> AI:
    """A perfect player of skill `skill`: a best move with probability `skill`, else a uniformly
    random one (GamesmanUni's skill slider), answered as move probabilities."""

    @cache
    def shares(legal: int, best: int) -> tuple[Fraction, Fraction]:
        return graded_odds(skill, legal, best)

    def graded(board: str) -> dict[int, Fraction]:
        best, legal = perfect(board), legal_moves(board, game)
        rest, top = shares(len(legal), len(best))
        policy = {move: top if move in best else rest for move in legal}
        return {move: p for move, p in policy.items() if p > 0}

    return graded


def _parameter(entry: BuiltinAI, spec: str, text: str, game: Game) -> Parameter:
    """The AI's `@` parameter: a depth from 0 to the game's cells, or a finite positive number of
    seconds; UnknownAIError quoting the name otherwise."""
    base = entry.name.partition("@")[0]
    if entry.parameter is None:
        if text:
            raise UnknownAIError(spec, f"{base} takes no parameter")
        return None
    if entry.parameter is Fraction:
        if not text:
            return None
        skill = parse_probability(text)
        if skill is None:
            raise UnknownAIError(spec, f"{base}@P needs a probability P from 0 to 1, as in {base}@0.9")
        return skill
    if entry.parameter is int:
        depth = parse_depth(text, game)
        if depth is None:
            raise UnknownAIError(spec, f"{base} needs a depth from 0 to {game.cells}, as in {entry.name}")
        return depth
    seconds = parse_seconds(text)
    if seconds is None:
        raise UnknownAIError(spec, f"{base} needs a number of seconds above 0, as in {base}@0.1")
    return seconds


def parse_probability(text: str) -> Fraction | None:
    """A probability from 0 to 1 as written ("0.9", "9/10"), exact; None if it is not one."""
    try:
        value = probability_of_text(text)
    except ValueError:
        return None
    return value if 0 <= value <= 1 else None


BUILTIN_AIS: tuple[BuiltinAI, ...] = (
    BuiltinAI("ai1s", "the first empty cell in index order (not symmetric)", False, _plain(ai1s)),
    BuiltinAI("ai2s", "every legal move: uniformly random play", True, _plain(ai2s)),
    BuiltinAI(
        "ai14s",
        "rule-based: scores each move's board by its lines, keeps the top (3x3k3 only)",
        True,
        _plain(ai14s),
        tictactoe_only=True,
    ),
    BuiltinAI(
        "perfect",
        "database lookup: every best move (perfect@P: a best move with probability P, else random)",
        True,
        _from_database(False),
        Fraction,
    ),
    BuiltinAI(
        "perfect-shortest",
        "database lookup: win fastest, lose slowest (@P as for perfect)",
        True,
        _from_database(True),
        Fraction,
    ),
    BuiltinAI("minimax-tt", "full-depth minimax with a table of exact values, no database", True, None),
    BuiltinAI("minimax-tt-shortest", "minimax-tt on shortest-victory scores", True, None),
    BuiltinAI("alphabeta", "alpha-beta with a symmetric transposition table, no database", True, None),
    BuiltinAI("alphabeta-shortest", "alpha-beta on shortest-victory scores", True, None),
    BuiltinAI("dls@N", "depth-limited minimax, N plies below the move, unfinished boards score 0", True, None, int),
    BuiltinAI(
        "abdls@N", "depth-limited alpha-beta, unfinished boards scored by their lines (ai14s's score)", True, None, int
    ),
    BuiltinAI(
        "iddfs@SECONDS",
        "iterative deepening abdls@0, @1, ... within SECONDS per move",
        True,
        None,
        float,
        deterministic=False,
    ),
)
_BY_BASE = {ai.name.split("@")[0]: ai for ai in BUILTIN_AIS}
# every built-in AI once, the parameterised ones at a typical setting (`check --all`)
DEFAULT_INSTANCES = (
    "ai1s",
    "ai2s",
    "ai14s",
    "perfect",
    "perfect-shortest",
    "minimax-tt",
    "minimax-tt-shortest",
    "alphabeta",
    "alphabeta-shortest",
    *PARAMETERISED_EXAMPLES,
)


def _named_builtin(spec: str, game: Game) -> tuple[BuiltinAI, Parameter, str]:
    """A built-in AI's entry, parameter and name for `game`; UnknownAIError (AINotForGameError for one
    that does not play the game) without making it."""
    base, _, text = spec.partition("@")
    entry = _BY_BASE.get(base)
    if entry is None:
        close = difflib.get_close_matches(spec, [*DEFAULT_INSTANCES, *_BY_BASE], n=3, cutoff=0.5)
        raise UnknownAIError(spec, "no built-in AI has that name; `ttt-db ais` lists them", tuple(dict.fromkeys(close)))
    refusal = entry.refusal(game)
    if refusal is not None:
        raise AINotForGameError(spec, game.name, f"it {refusal}")
    parameter = _parameter(entry, spec, text, game)
    spelt = None if parameter is None else f"{float(parameter):g}"  # one spelling: dls@01 is dls@1
    return entry, parameter, base if spelt is None else f"{base}@{spelt}"


def check_ai_name(spec: str, game: Game) -> None:
    """UnknownAIError now, before any database is opened or built, for a built-in AI's name that
    load_ai would refuse for `game`; a user's AI (`module:function`) is tried when it is loaded."""
    spec = spec.strip()
    if ":" in spec:
        return
    if is_policy_file(spec):
        load_policy_file(spec, game)
        return
    base = spec.partition("@")[0].lower()
    if base not in _BY_BASE and spec.endswith(".py"):
        raise file_without_function(spec)
    if base not in _BY_BASE and "." in spec and "@" not in spec:
        module_name, _, function = spec.rpartition(".")
        raise UnknownAIError(
            spec, "a user AI is written package.module:function, with a colon", (f"{module_name}:{function}",)
        )
    _named_builtin(spec.lower(), game)


def named_core_policy(spec: str, game: Game) -> CorePolicy | None:
    """The CorePolicy of the AI of that name (None for a user's AI, or a built-in one the core
    does not play), known without making it or opening a database; UnknownAIError as load_ai."""
    spec = spec.strip()
    if ":" in spec:
        return None
    if is_policy_file(spec):
        return load_policy_file(spec, game).core_policy
    check_ai_name(spec, game)
    _entry, parameter, _name = _named_builtin(spec.lower(), game)
    return _core_policy(spec.lower().partition("@")[0], parameter)


def _builtin(spec: str, database: DatabaseProvider | None, game: Game) -> NamedAI:
    entry, parameter, name = _named_builtin(spec, game)
    base = spec.partition("@")[0]
    search = None
    if entry.make is None:
        from ttt_db.ais.searching import search_ai  # the searches load only for an AI that runs one

        play, search = search_ai(name, game)
    else:
        play = entry.make(parameter, database, game)
    core_answer = {"perfect": "best", "perfect-shortest": "fastest"}.get(base) if parameter is None else None
    return NamedAI(
        name,
        play,
        entry.symmetric,
        entry.summary,
        entry.deterministic,
        core_answer,
        search,
        _core_policy(base, parameter),
    )


def _core_policy(base: str, parameter: Parameter) -> CorePolicy | None:
    """The built-in AI's policy as the core plays it: the perfect players (graded or not) and ai2s."""
    if base == "ai2s":
        return CorePolicy("best", Fraction(0))
    if base in ("perfect", "perfect-shortest"):
        return CorePolicy("best" if base == "perfect" else "fastest", Fraction(1 if parameter is None else parameter))
    return None


def _document(entry: BuiltinAI, name: str, game: Game) -> dict[str, Any]:
    refusal = entry.refusal(game)
    return {
        "name": name,
        "family": entry.name,
        "summary": entry.summary,
        "symmetric": entry.symmetric,
        "deterministic": entry.deterministic,
        "available": refusal is None,
        "reason": None if refusal is None else f"{name} {refusal}",
    }


def ais_document(game: Game) -> list[dict[str, Any]]:
    """What `ttt-db ais --json` prints and `/api/ais` sends: every built-in AI at a typical setting,
    what it is, and whether it plays `game` (and why not)."""
    return [_document(_BY_BASE[name.partition("@")[0]], name, game) for name in DEFAULT_INSTANCES]


def shown_check(game: Game) -> str:
    """The AI a page offers to check first on `game`: ai14s where it plays (tic-tac-toe), else the
    first deterministic built-in AI that plays the game."""
    for name in DEFAULT_INSTANCES:
        entry = _BY_BASE[name.partition("@")[0]]
        if entry.deterministic and entry.refusal(game) is None and (name == "ai14s" or game != TICTACTOE):
            return name
    return DEFAULT_INSTANCES[0]


def ai_document(ai: NamedAI, game: Game) -> dict[str, Any]:
    """One built-in AI's entry of `ais_document`, at its own setting (`/api/ais?ai=dls@5`)."""
    return _document(_BY_BASE[ai.name.partition("@")[0]], ai.name, game)


def playable_ais(game: Game, database: DatabaseProvider | None = None) -> list[NamedAI]:
    """Every built-in AI at its typical setting that plays `game` (`check --all`)."""
    return [
        load_ai(name, database, game)
        for name in DEFAULT_INSTANCES
        if _BY_BASE[name.partition("@")[0]].refusal(game) is None
    ]


def load_ai(spec: str, database: DatabaseProvider | None = None, game: Game = TICTACTOE) -> NamedAI:
    """A built-in AI by name (`ai14s`, `dls@3`, ...) for `game`, a user's
    `package.module:function` or `path/to/file.py:function` (it receives that game's boards), or a
    tabular policy's JSON file, `path/to/policy.json` (`ttt_db.ais.tabular`).

    `database` is called only by AIs that read the database. Raises UnknownAIError. An AI is asked
    boards with o moved first, and answers every move it may play:

    >>> load_ai("ai14s").play("xo..o....")
    (7,)
    >>> load_ai("ai1s").name, load_ai("ai1s").play("xo..o....")
    ('ai1s', (2,))
    """
    spec = spec.strip()
    if ":" in spec:
        return load_user_ai(spec, game)
    if is_policy_file(spec):
        return load_policy_file(spec, game)
    check_ai_name(spec, game)
    return _builtin(spec.lower(), database, game)
