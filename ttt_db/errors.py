"""Every exception the library raises, in one tree. Every message quotes the input that caused it.

    TttDbError
    ├── InputError (also a ValueError): text from the user that cannot be used
    │   ├── InvalidBoardError ── ImpossibleBoardError
    │   ├── InvalidMoveError, UnknownGameError, UnknownAlgorithmError, InvalidDigestError
    │   ├── UnknownAIError ── AINotForGameError, AILoadFailedError
    │   └── TraceFormatError: a search trace that does not follow docs/trace.md
    ├── WorkLimitError: more work than the caller allows
    ├── AIMisbehaved: an AI's answer that is not a usable set of moves
    ├── SearchTimeout: a search's deadline passed (iterative deepening abandons the iteration)
    └── DatabaseError: missing, unreadable, of another schema version
        ├── DatabaseMissingError, ReadFailedError
        ├── DatabaseDamagedError ── PositionNotFoundError, DigestMismatchError
        └── PublishedFileError: a published database that cannot be fetched or is not as its manifest says

The command line turns every TttDbError into one `error: ...` line and exit 2. `StopRequested`
stands outside the tree: it is no error but a stop the user asked for with a signal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path


QUOTED_CHARS = 200
"""The most characters of an input an error quotes (a hostile line may be megabytes long)."""


def quoted(text: str) -> str:
    """`text` in quotes as the user typed it: control characters and quotes escaped, but a
    backslash left single, where `repr` would double it; cut after QUOTED_CHARS characters."""
    return repr(shortened(text)).replace(2 * BACKSLASH, BACKSLASH)


def shortened(text: str) -> str:
    """`text`, or its first QUOTED_CHARS characters and an ellipsis."""
    return text if len(text) <= QUOTED_CHARS else text[:QUOTED_CHARS] + "…"


BACKSLASH = chr(92)


class TttDbError(Exception):
    """Base class of every error this package raises on purpose."""


class InputError(TttDbError, ValueError):
    """Text from the user that cannot be used; the message quotes it and says why."""

    what = "input"

    def __init__(self, text: str, reason: str) -> None:
        self.text = text
        self.reason = reason
        super().__init__(f"invalid {self.what} {quoted(text)}: {reason}")


class InvalidBoardError(InputError):
    """A board string that is malformed (length, characters, row separators)."""

    what = "board"


class ImpossibleBoardError(InvalidBoardError):
    """A well-formed board that no game of tic-tac-toe can reach (with the given first player).

    `reachable_with_first` names the other first player when the board is reachable with it."""

    def __init__(self, text: str, reason: str, *, reachable_with_first: str | None = None) -> None:
        super().__init__(text, reason)
        self.reachable_with_first = reachable_with_first


class InvalidMoveError(InputError):
    """A move that does not parse, is out of range, or is not legal on the board."""

    what = "move"


class InvalidDigestError(InputError):
    """A content digest that is not 64 hexadecimal digits."""

    what = "digest"


class InvalidDepthError(InputError):
    """A level (moves made) that the game has not."""

    what = "depth"


class DatabaseError(TttDbError):
    """The database is missing, unreadable, or of another schema version."""


class DatabaseMissingError(DatabaseError):
    """No database exists at the location; `ttt-db build` creates it."""


class ReadFailedError(DatabaseError):
    """The engine refused a query: not a database, a missing table, a locked file."""


class DatabaseDamagedError(DatabaseError):
    """Stored content that cannot be right: a row that fails to decode or breaks the rules, a
    missing row or meta entry, a row that is not the board asked for."""

    def __init__(self, what: str, where: str) -> None:
        self.what = what
        self.where = where
        super().__init__(f"the database is damaged ({what}, {where}): rebuild it with `ttt-db build --force`")


class DigestMismatchError(DatabaseDamagedError):
    """A database whose content digest is not the one pinned (`ttt_db.store.pins`)."""

    def __init__(self, location: str, found: str, pinned: str, source: str, remedy: str) -> None:
        self.found = found
        self.pinned = pinned
        self.what = f"its content digest is {found[:16]}..., the pin ({source}) {pinned[:16]}..."
        self.where = location
        Exception.__init__(self, f"{location} is not the database pinned: {self.what}; {remedy}")


class PinRecordError(DatabaseError):
    """A recorded pin (`ttt_db.store.pins`) that cannot be read, or written where a build, a fetch
    or a verify records one: the file would be read, or left, unpinned without a word."""

    def __init__(self, location: str, record: str, why: str, *, writing: bool = False) -> None:
        self.location = location
        self.record = record
        if writing:
            message = (
                f"{location} was not pinned: its record {record} cannot be written ({why}); the file is "
                "sound, and `ttt-db verify` records its digest once the folder can be written"
            )
        else:
            message = (
                f"the pin recorded for {location} cannot be read ({record}: {why}): remove that file and "
                "prove the database with `ttt-db verify`, which records its digest anew"
            )
        super().__init__(message)


class PublishedFileError(DatabaseError):
    """A published database (`ttt-db publish`, `ttt-db build --from`) that cannot be fetched, or
    whose manifest, size or hash is not what was published."""


class NotStoredError(DatabaseError):
    """What a game's database does not give: over 16 cells it holds the ranked core alone, so no
    random-play odds, and no list of every board by name, which would be hundreds of millions."""


class PositionNotFoundError(DatabaseDamagedError, KeyError):
    """A valid board in play that the best-moves table does not hold: every such board has an
    entry, so the database is damaged or incomplete."""

    def __init__(self, board: str) -> None:
        self.board = board
        super().__init__(f"no best moves for board {board!r}", "table ttt_core")

    def __str__(self) -> str:
        return DatabaseDamagedError.__str__(self)


class UnknownAIError(InputError):
    """An AI name that is neither built in nor a loadable `module:function` (and, as its
    subclasses, an AI that does not play the game or fails to load)."""

    def __init__(self, spec: str, reason: str, suggestions: tuple[str, ...] = ()) -> None:
        self.spec = spec
        self.suggestions = suggestions
        super().__init__(spec, reason)
        message = f"{self.headline()}: {reason}"
        if suggestions:
            message += f" (did you mean {', '.join(suggestions)}?)"
        self.args = (message,)

    def headline(self) -> str:
        return f"unknown AI {self.spec!r}"


class AINotForGameError(UnknownAIError):
    """A built-in AI that does not play the game asked (ai14s on 4x4k4)."""

    def __init__(self, spec: str, game_name: str, reason: str) -> None:
        self.game_name = game_name
        super().__init__(spec, reason)

    def headline(self) -> str:
        return f"AI {self.spec!r} does not play {self.game_name}"


class AIUnusableError(UnknownAIError):
    """A user's AI that was found but is not something ttt-db can ask for moves as it is (an
    object that is not callable, an OpenSpiel bot that samples, a factory giving neither a bot nor
    a policy): the reason says what to write instead."""

    def headline(self) -> str:
        return f"AI {self.spec!r} was found but cannot be asked for moves as it is"


class AILoadFailedError(UnknownAIError):
    """A user's AI that was found but failed to load: its import raised (a SyntaxError, a module it
    imports missing), exited, or was not ready in time."""

    def headline(self) -> str:
        return f"AI {self.spec!r} failed to load"


class UnknownAlgorithmError(InputError):
    """A search algorithm name that `ttt-db search` does not know."""

    what = "search algorithm"


class UnknownGameError(InputError):
    """A game name that is not `RxCkK`, or a game this machine does not build."""

    what = "game"


class TraceFormatError(InputError):
    """A trace that does not follow the format; names the record (line) and what is wrong."""

    def __init__(self, record: int, reason: str) -> None:
        self.record = record
        super().__init__(f"record {record}", reason)
        self.args = (f"malformed trace, record {record}: {reason}",)


class WorkLimitError(TttDbError):
    """A request for more work than the caller allows (a search past its node limit, ...)."""


class SearchTimeout(TttDbError):
    """Raised inside a search when its deadline passes, abandoning that iteration."""


class AIMisbehaved(TttDbError):
    """The AI's answer at `board` is not a usable set of moves. `where` is the `path:line` of
    the last frame outside ttt-db when the AI raised."""

    def __init__(self, board: str, reason: str, where: str | None = None) -> None:
        self.board = board
        self.reason = reason
        self.where = where
        super().__init__(f"at {board!r}: {reason}" + (f" (at {where})" if where else ""))


class BuildRefusedError(DatabaseError):
    """A build that this machine (or this release) cannot hold, refused before it starts; `plan`
    says what it would take."""

    def __init__(self, message: str, plan: list[str]) -> None:
        super().__init__("\n".join([message, *plan]))
        self.plan = plan


class WorkFolderDamagedError(DatabaseError):
    """A level a stopped build saved in its work folder that is not what it saved (a flipped bit,
    a cut file): the build solves it again."""

    def __init__(self, depth: int, path: Path, why: str) -> None:
        super().__init__(
            f"level {depth} in the work folder ({path}) is damaged: {why}; build again, which solves it again"
        )
        self.depth = depth
        self.path = path
        self.why = why


class ClusterStartError(TttDbError):
    """The Dask cluster on this machine did not start, even waiting longer, or the scheduler given
    did not answer: what failed, and what to try."""

    def __init__(self, workers: int | None, scheduler: str | None, waited: tuple[str, ...], failure: str) -> None:
        if scheduler is not None:
            what = f"the Dask scheduler at {scheduler} did not answer ({failure})"
            tries = "check its address and that it runs, or leave out --scheduler"
        else:
            waits = " then ".join(waited)
            what = (
                f"a Dask cluster of {workers or 1} workers did not start on this machine (waiting {waits}: {failure})"
            )
            tries = "try fewer --workers, a less busy machine, or a cluster of your own with --scheduler"
        super().__init__(f"{what}: {tries}")
        self.failure = failure


class MissingExtraError(TttDbError):
    """An optional package this feature needs is not installed: the message says what to install."""

    def __init__(self, package: str, extra: str) -> None:
        super().__init__(f"{package} is not installed: pip install 'ttt-db[{extra}]'")
        self.package = package
        self.extra = extra


class StopRequested(SystemExit):
    """A signal asked the command to stop (the command line raises it on SIGTERM, with exit code
    143): it unwinds every `finally`, and code that runs an AI lets it pass, never counting it as
    the AI's failure, where an AI's own `sys.exit` is."""
