"""What the web API answers, as plain values: every call goes through the library the CLI uses,
and every call's work is bounded (docs/api.md). `ApiError` carries the HTTP status and a message
that quotes the input; the app turns it into JSON.

Plug-in AIs (`module:function`) are never loaded here: importing user code is a CLI feature.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections import OrderedDict
from typing import Any, Final

from ttt_db.ais.calling import choose_move
from ttt_db.ais.protocol import NamedAI
from ttt_db.ais.registry import ai_document, ais_document, load_ai, shown_check
from ttt_db.ais.tabular import is_policy_file, policy_from_document
from ttt_db.checks.measures import measure_policy
from ttt_db.checks.report import CheckReport, run_checks
from ttt_db.cli.batch_processes import collections_deferred
from ttt_db.errors import AIMisbehaved, SearchTimeout, WorkLimitError
from ttt_db.game.board import Board, parse_move
from ttt_db.game.definition import Game
from ttt_db.game.rules import Mark
from ttt_db.json_text import compact_json, read_json
from ttt_db.outputs.stats import depth_chart, solution_stats
from ttt_db.play.line import perfect_line
from ttt_db.play.playthrough import Playthrough
from ttt_db.search.algorithms import search_board, shown_search
from ttt_db.search.trace import Enter, Exit
from ttt_db.store.database import SolutionDatabase
from ttt_db.web.checking import BackgroundCheck

MAX_TEXT: Final = 64
"""The longest board, AI or algorithm name a request may carry (a 4x4 board with `/` is 19)."""
SCORED_COSTLIEST: Final = 3
"""The costliest positions per seat a score over the web lists (docs/api.md)."""
TABLE_NAME: Final = "a policy file"
"""What a tabular policy sent without a name (`POST /api/score`) is called."""
SEARCH_NODE_LIMIT: Final = 1_000_000
"""A search over the web stops past this many nodes (plain minimax from the empty 3x3 board: 549,946)."""
SEARCH_SECONDS: Final = 10.0
"""A search over the web also stops past this many seconds, whatever else the server runs."""
TRACE_NODE_LIMIT: Final = 5_000
"""A traced search sends every node to the page: alpha-beta from the empty 3x3 board has 832."""
AI_MOVE_NODE_LIMIT: Final = 1_000_000
"""An AI's move may search at most this many nodes (counted as the full tree below the board)."""
IDDFS_MAX_SECONDS: Final = 2.0
CHECK_IN_REQUEST_CELLS: Final = 9
"""A check of a game of up to 9 cells answers within its request; a larger game's runs as the
server's one background check, which the page polls for its progress."""
FAILURES_PAGE_MAX: Final = 100
STATS_IN_REQUEST_CELLS: Final = 20
"""The largest game whose statistics a request computes (once per server); `ttt-db stats` beyond."""
MAX_BATCH_BOARDS: Final = 10_000
"""Boards one POST /api/positions answers."""
MAX_BATCH_BYTES: Final = 1 << 20
"""The largest body of POST /api/positions: its boards as records, with room to spare."""
CACHED_AIS: Final = 64
CACHED_CHECKS: Final = 32
"""Check reports kept, the least recently asked forgotten first (a 4x4 report holds its failures)."""


class ApiError(Exception):
    """A request the API refuses: `status` (400, 404, 413, 414, ...) and a message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class _TraceCollector:
    """Collects a traced search: every node's fields, and the visit order as signed ids
    (+id on entering a node, -id on leaving it)."""

    def __init__(self) -> None:
        self.nodes: dict[int, dict[str, Any]] = {}
        self.order: list[int] = []

    def __call__(self, event: Enter | Exit) -> None:
        fields = event.to_json()
        del fields["type"]
        if isinstance(event, Enter):
            self.nodes[event.id] = fields
            self.order.append(event.id)
        else:
            self.nodes[event.id].update(fields)
            self.order.append(-event.id)

    def to_document(self) -> dict[str, Any]:
        return {"nodes": [self.nodes[node] for node in sorted(self.nodes)], "order": self.order}


def _text(value: str | None, name: str, default: str | None = None) -> str:
    if value is None or value == "":
        if default is None:
            raise ApiError(400, f"missing parameter {name!r}")
        return default
    if len(value) > MAX_TEXT:
        raise ApiError(400, f"parameter {name!r} is {len(value)} characters long; at most {MAX_TEXT}")
    return value


def _first(value: str | None) -> Mark | None:
    if value in (None, ""):
        return None
    if value not in ("o", "x"):
        raise ApiError(400, f"invalid first {value!r}: it is 'o' or 'x'")
    return value  # type: ignore[return-value]


def _int(value: str | None, name: str, default: int, low: int, high: int) -> int:
    if value in (None, ""):
        return default
    assert value is not None
    if not (value.isascii() and value.isdigit()) or not low <= int(value) <= high:
        raise ApiError(400, f"invalid {name} {value!r}: a whole number from {low} to {high}")
    return int(value)


class _ScoreStopped(Exception):
    """A score's progress heard its deadline pass, or the server stop."""


class Service:
    """The API's answers over one open database (shared by every request; thread-safe)."""

    def __init__(
        self,
        database: SolutionDatabase,
        *,
        check_in_request_cells: int = CHECK_IN_REQUEST_CELLS,
        search_seconds: float = SEARCH_SECONDS,
    ) -> None:
        self.database = database
        self.search_seconds = search_seconds
        self.halted = threading.Event()  # set when the server stops: work that hears it gives up
        self.game: Game = database.game
        self._check_in_request = self.game.cells <= check_in_request_cells
        self._job: BackgroundCheck | None = None
        self._positions: OrderedDict[tuple[str, str | None], bytes] = OrderedDict()
        self._ais: OrderedDict[str, NamedAI] = OrderedDict()
        self._checks: OrderedDict[str, CheckReport] = OrderedDict()
        self._scores: dict[str, dict[str, Any]] = {}
        self._stats: dict[str, Any] | None = None
        self._lock = threading.Lock()
        self._check_lock = threading.Lock()
        self._stats_lock = threading.Lock()

    # --- boards -------------------------------------------------------------------------

    def _board(self, text: str | None, first: str | None = None) -> Board:
        return Board.parse(_text(text, "board", self.game.empty_board), _first(first), self.game)

    def game_document(self) -> dict[str, Any]:
        """The game (`Game.to_document`) with the figures of its build, and the search and the
        deterministic AI the page shows first there (`shown_search`, `shown_check`)."""
        return {
            **self.game.to_document(),
            "figures": self.database.meta()["figures"],
            "shown_search": shown_search(self.game),
            "shown_check": shown_check(self.game),
        }

    def position_json(self, text: str | None, first: str | None = None) -> bytes:
        """`best-moves --json` for the board, as JSON bytes (the first 100,000 asked are remembered)."""
        key = (text or "", first)
        with self._lock:
            cached = self._positions.get(key)
        if cached is not None:
            return cached
        board = self._board(text, first)
        document = self.database.lookup(board).to_document()
        return self._remembered(key, compact_json(document))

    def positions_json(self, body: bytes) -> bytes:
        """`{"positions": [...]}` as JSON bytes: the `best-moves --json` document of each board of a
        batch, in order, or its error record (`SolutionDatabase.position_lines`); the body is a
        JSON array of boards or records `{"board", "first"}`, or `{"boards": [...], "first": "o" or
        "x"}`. Each answer is remembered as `/api/position`'s are."""
        try:
            batch = read_json(body)
        except ValueError as error:
            raise ApiError(400, f"the body is {error}") from None
        first: Any = None
        if isinstance(batch, dict):
            first = batch.get("first")
            batch = batch.get("boards")
        if not isinstance(batch, list):
            raise ApiError(400, 'the body is a JSON array of boards, or {"boards": [...], "first": "o" or "x"}')
        if len(batch) > MAX_BATCH_BOARDS:
            raise ApiError(413, f"{len(batch):,} boards in one request; at most {MAX_BATCH_BOARDS:,}")
        mark = _first(first if isinstance(first, str) else None if first is None else repr(first))
        keys = [(item if isinstance(item, str) else json.dumps(item, sort_keys=True), mark) for item in batch]
        with self._lock:
            answers = [self._positions.get(key) for key in keys]
        missing = [i for i, answer in enumerate(answers) if answer is None]
        lines = self.database.position_lines([batch[i] for i in missing], first=mark)  # derived together
        with collections_deferred():
            for i, line in zip(missing, lines, strict=True):
                answers[i] = self._remembered(keys[i], line)
        filled = [answer for answer in answers if answer is not None]
        assert len(filled) == len(answers)  # every item answered, from the cache or just now
        return b'{"positions":[' + b",".join(filled) + b"]}"

    def _remembered(self, key: tuple[str, str | None], encoded: bytes) -> bytes:
        with self._lock:
            self._positions[key] = encoded
            if len(self._positions) > 100_000:
                self._positions.popitem(last=False)
        return encoded

    def mistake(self, text: str | None, moves: str | None, first: str | None = None) -> dict[str, Any]:
        """`{"mistake": ...}`: the first move of the game from the board through `moves` (cells,
        comma-separated) that made its player's outcome worse (`first_mistake`), or null."""
        game = Playthrough(self.game, self._board(text, first))
        for move in (moves or "").split(","):
            if move.strip():
                game.push(parse_move(move, self.game))
        found = game.first_mistake(self.database.lookup)
        return {"mistake": None if found is None else found.to_dict()}

    # --- AIs ----------------------------------------------------------------------------

    def ais_document(self, name: str | None = None) -> list[dict[str, Any]]:
        """The built-in AIs; with `name`, that one AI as the server would play it (ApiError when
        it is no AI of this game), so a page can check a name from a link before the first move."""
        if name in (None, ""):
            return [self._as_opponent(entry) for entry in ais_document(self.game)]
        return [self._as_opponent(ai_document(self._ai(_text(name, "ai")), self.game))]

    def _as_opponent(self, entry: dict[str, Any]) -> dict[str, Any]:
        """An AI's entry with `opponent`: whether the page can play against it here, false where
        its move from the empty board is refused (a full search of a large game's tree, the rule of
        `_refuse_unbounded_move`), with `opponent_reason`."""
        reason = None if entry["available"] else entry["reason"]
        if reason is None:
            try:
                self._refuse_unbounded_move(
                    self._ai(entry["name"]), Board.parse(self.game.empty_board, None, self.game)
                )
            except ApiError as refused:
                reason = refused.message
        return entry | {"opponent": reason is None, "opponent_reason": reason}

    def _ai(self, name: str) -> NamedAI:
        if ":" in name or is_policy_file(name):
            raise ApiError(
                400,
                f"unknown AI {name!r}: AIs of your own (module:function or a policy file) run from the "
                "command line only; the web serves the built-in AIs",
            )
        key = name.strip().lower()
        with self._lock:
            found = self._ais.get(key)
        if found is not None:
            return found
        named = load_ai(key, lambda: self.database, self.game)
        with self._lock:
            self._ais[key] = named
            if len(self._ais) > CACHED_AIS:
                self._ais.popitem(last=False)
        return named

    def _refuse_unbounded_move(self, named: NamedAI, board: Board) -> None:
        base, _, parameter = named.name.partition("@")
        if base == "iddfs" and float(parameter) > IDDFS_MAX_SECONDS:
            raise ApiError(400, f"iddfs over the web thinks at most {IDDFS_MAX_SECONDS:g} s a move, not {parameter}")
        nodes = named.most_nodes(board.cells)
        if nodes is not None and nodes > AI_MOVE_NODE_LIMIT:
            raise ApiError(
                400,
                f"{named.name} would search up to {nodes:,} boards below {board.cells!r}; the web allows "
                f"{AI_MOVE_NODE_LIMIT:,}: choose perfect, or a shallower dls@N/abdls@N",
            )

    def ai_move(
        self, name: str | None, text: str | None, first: str | None = None, seed: str | None = None
    ) -> dict[str, Any]:
        """The AI's candidate moves at the board, and one of them chosen at random (seeded)."""
        ai_name = _text(name, "ai")
        named = self._ai(ai_name)
        board = self._board(text, first)
        if board.is_over:
            raise ApiError(400, f"invalid board {text!r}: the game is over, there is no move to make")
        self._refuse_unbounded_move(named, board)
        rng = random.Random(_int(seed, "seed", 0, 0, 2**31)) if seed else random.Random()
        try:
            return choose_move(named, board, rng).to_document()
        except AIMisbehaved as error:  # a built-in AI should not, but say so rather than crash
            raise ApiError(500, f"{ai_name} misbehaved {error}") from None

    def stats(self) -> dict[str, Any]:
        """`stats --json` (`solution_stats`'s document) and `chart`, its SVG of the positions in play
        by depth and value (`depth_chart`, as a notebook draws it); computed once per server."""
        if self.game.cells > STATS_IN_REQUEST_CELLS:
            raise ApiError(
                400,
                f"the statistics of {self.game} walk {self.game.cells}-cell levels, longer than a request: "
                f"run `ttt-db stats --game {self.game}`",
            )
        with self._stats_lock:  # one computation, whoever asks while it runs
            if self._stats is None:
                found = solution_stats(self.database)
                self._stats = found.to_document() | {"chart": depth_chart(found)}
            return self._stats

    def line(self, text: str | None, first: str | None = None, shortest: str | None = None) -> dict[str, Any]:
        """Perfect play from the board to the end (`perfect_line`'s document); `shortest=1` follows
        the fastest wins and slowest losses."""
        board = self._board(text, first)
        return perfect_line(self.database, board, shortest=shortest in ("1", "true", "yes")).to_document()

    # --- checks -------------------------------------------------------------------------

    def check(self, name: str | None, offset: str | None = None, limit: str | None = None) -> dict[str, Any]:
        """Weak and strong checks of a built-in AI, strong failures paged (shallowest first)."""
        named = self._ai(_text(name, "ai"))
        if not named.deterministic:
            raise ApiError(
                400,
                f"{named.name} answers by the clock, so its check depends on the machine's load: "
                "run `ttt-db check` instead",
            )
        first = _int(offset, "offset", 0, 0, 10**9)
        count = _int(limit, "limit", 20, 1, FAILURES_PAGE_MAX)
        ai_name = named.name  # one report per AI, however its name is spelt (dls@01, dls@1)
        with self._check_lock:
            report = self._checks.get(ai_name)
            if report is None and self._check_in_request:
                report = run_checks(named, self.database)
                self._remember_check(ai_name, report)
            if report is None:
                return self._background_check(ai_name)
            self._checks.move_to_end(ai_name)
        return report.to_document(first, count) | {"status": "done"}

    def score(self, name: str | None) -> dict[str, Any]:
        """How good a built-in AI is, exactly (`measure_policy`'s document), on a game small enough
        to measure within the request."""
        named = self._ai(_text(name, "ai"))
        if not named.deterministic:
            raise ApiError(400, f"{named.name} answers by the clock: run `ttt-db score` instead")
        self._refuse_unless_measured_here(named.name)
        with self._check_lock:
            found = self._scores.get(named.name)
            if found is None:
                found = self._scores[named.name] = self._measures(named)
        return found

    def score_table(self, body: bytes, name: str | None) -> dict[str, Any]:
        """How good a tabular policy is (`measure_policy`'s document, as `score`'s), sent as a
        policy file's JSON document (`ttt_db.ais.tabular`) named `name` (the file's, as shown; a label,
        cut to MAX_TEXT characters), on a game small enough to measure within the request."""
        label = name or TABLE_NAME
        if len(label) > MAX_TEXT:
            label = f"{label[: MAX_TEXT - 1]}…"
        self._refuse_unless_measured_here("FILE")
        try:
            document = read_json(body)
        except ValueError as error:
            raise ApiError(400, f"the body is {error}") from None
        return self._measures(policy_from_document(document, self.game, name=label))

    def _refuse_unless_measured_here(self, spec: str) -> None:
        """ApiError naming the command (`ttt-db score SPEC`) on a game too large to measure within a request."""
        if not self._check_in_request:
            raise ApiError(
                400, f"{self.game.name} is measured from the command line: ttt-db score {spec} --game {self.game.name}"
            )

    def _measures(self, named: NamedAI) -> dict[str, Any]:
        """`score --json`'s document of the AI, with SCORED_COSTLIEST positions per seat, within a
        search's time (`search_seconds`) and stopped when the server stops (`halted`): ApiError 503
        then, as a search past its deadline answers."""
        deadline = time.monotonic() + self.search_seconds

        def progress(_met: int) -> None:  # heard at each position asked, or each level walked
            if self.halted.is_set() or time.monotonic() > deadline:
                raise _ScoreStopped

        try:
            return measure_policy(named, self.database, costliest=SCORED_COSTLIEST, progress=progress).to_document()
        except _ScoreStopped:
            if self.halted.is_set():
                raise ApiError(503, "the server is stopping") from None
            raise ApiError(
                503,
                f"a score over the web runs at most {self.search_seconds:g} s; {named.name} on {self.game.name} ran "
                f"longer: run `ttt-db score` for it",
            ) from None

    def _remember_check(self, ai_name: str, report: CheckReport) -> None:
        """Keep the report (called holding the check lock), forgetting the least recently asked
        beyond CACHED_CHECKS."""
        self._checks[ai_name] = report
        while len(self._checks) > CACHED_CHECKS:
            self._checks.popitem(last=False)

    def _background_check(self, ai_name: str) -> dict[str, Any]:
        """The state of the server's one background check (called holding the check lock):
        started for `ai_name` when none runs; ApiError 409 while another AI's runs."""
        job = self._job
        if job is not None and job.running and job.ai != ai_name:
            raise ApiError(
                409,
                f"the server is checking {job.ai} on {self.game.name} ({job.progress.done:,} boards so far); "
                "one check runs at a time: ask again when it is done, or cancel it",
            )
        if job is None or job.ai != ai_name:
            pin = self.database.pin
            job = self._job = BackgroundCheck(
                ai_name,
                self.database.location,
                self.game,
                lambda report: self._finish_check(ai_name, report),
                digest=pin.digest if pin is not None else None,
            )
        if job.error is not None:
            self._job = None
            raise ApiError(500, f"the check of {ai_name} failed: {job.error}")
        return job.status() | {"game": self.game.name}

    def _finish_check(self, ai_name: str, report: CheckReport) -> None:
        with self._check_lock:
            self._remember_check(ai_name, report)
            self._job = None

    def cancel_check(self, name: str | None) -> dict[str, Any]:
        """Stop the background check of `name`; ApiError 404 when it is not running."""
        ai_name = self._ai(_text(name, "ai").strip().lower()).name
        with self._check_lock:
            job = self._job
            if job is None or job.ai != ai_name or not job.running:
                raise ApiError(404, f"no check of {ai_name} is running on {self.game.name}")
            job.cancel()
            self._job = None
        return {"ai": ai_name, "game": self.game.name, "status": "cancelled"}

    # --- searches -----------------------------------------------------------------------

    def search(
        self,
        algorithm: str | None,
        text: str | None,
        first: str | None = None,
        trace: str | None = None,
        arrived: float | None = None,
    ) -> dict[str, Any]:
        """A built-in search from the board with its statistics, the database's answer, and
        with `trace=1` every node in visit order (bounded by TRACE_NODE_LIMIT). Its deadline
        counts from `arrived` (time.monotonic() when the request came: a search that waited for a
        free slot has that much less time)."""
        name = _text(algorithm, "algorithm")
        board = self._board(text, first)
        traced = trace in ("1", "true", "yes")
        collector = _TraceCollector() if traced else None
        limit = TRACE_NODE_LIMIT if traced else SEARCH_NODE_LIMIT
        seconds = self.search_seconds
        if arrived is not None:
            seconds -= time.monotonic() - arrived
            if seconds <= 0:
                raise ApiError(
                    503,
                    f"a search over the web runs at most {self.search_seconds:g} s from its request; this one "
                    "waited that long for a free slot (the server is busy): try again",
                )
        try:
            answer = search_board(self.database, name, board, tracer=collector, node_limit=limit, time_limit=seconds)
        except SearchTimeout:
            raise ApiError(
                503,
                f"a search over the web runs at most {self.search_seconds:g} s; {name} from {board.cells!r} "
                "ran longer (the server is busy, or the search is too large): try again, or a fuller board",
            ) from None
        except WorkLimitError:
            what = "a traced search" if traced else "a search"
            other = "a depth-limited search (abdls@3)" if name.startswith("alphabeta") else "alphabeta or abdls@3"
            raise ApiError(
                400,
                f"{what} over the web visits at most {limit:,} nodes; {name} from {board.cells!r} "
                f"visits more: try {other}, or a fuller board",
            ) from None
        document = answer.to_document()
        if collector is not None:
            document["trace"] = collector.to_document()
        return document
