"""Exceptions raised by the library. Every message quotes the input that caused it."""

from __future__ import annotations


class TttDbError(Exception):
    """Base class of every error this package raises on purpose."""


class InvalidBoardError(TttDbError, ValueError):
    """A board string that is malformed (length, characters, row separators)."""

    def __init__(self, text: str, reason: str) -> None:
        self.text = text
        self.reason = reason
        super().__init__(f"invalid board {text!r}: {reason}")


class ImpossibleBoardError(InvalidBoardError):
    """A well-formed board that no game of tic-tac-toe can reach."""


class InvalidMoveError(TttDbError, ValueError):
    """A move that does not parse, is out of range, or is not legal on the board."""

    def __init__(self, text: str, reason: str) -> None:
        self.text = text
        self.reason = reason
        super().__init__(f"invalid move {text!r}: {reason}")


class PositionNotFoundError(TttDbError, KeyError):
    """A valid board that the database does not hold (an incomplete or foreign database)."""

    def __init__(self, board: str) -> None:
        self.board = board
        super().__init__(board)

    def __str__(self) -> str:
        return f"board {self.board!r} is not in the database"


class DatabaseError(TttDbError):
    """The database is missing, unreadable, or of another schema version."""


class DatabaseMissingError(DatabaseError):
    """No database exists at the location; `ttt-db build` creates it."""


class UnknownAIError(TttDbError, ValueError):
    """An AI name that is neither built in nor a loadable `module:function`."""

    def __init__(self, spec: str, reason: str, suggestions: tuple[str, ...] = ()) -> None:
        self.spec = spec
        self.reason = reason
        self.suggestions = suggestions
        message = f"unknown AI {spec!r}: {reason}"
        if suggestions:
            message += f" (did you mean {', '.join(suggestions)}?)"
        super().__init__(message)
