"""The board type: notations, the impossible-board rules, round-trips, and moves."""

from __future__ import annotations

import itertools

import pytest
import reference
from hypothesis import given
from hypothesis import strategies as st

from ttt_db.cli.render import diagram
from ttt_db.errors import ImpossibleBoardError, InvalidBoardError, InvalidMoveError
from ttt_db.game.board import Board, impossibility, normalize_cells, parse_move, plain_boards
from ttt_db.game.definition import TICTACTOE
from ttt_db.game.rules import move_name, winner


@pytest.mark.parametrize(
    "text",
    ["ox..x....", "OX..X....", "ox./.x./...", "ox-_x- _-", "OX_/_X_/___", "ox  x    "],
)
def test_accepted_notations_give_the_same_board(text: str) -> None:
    assert str(Board.parse(text)) == "ox..x...."


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("ox..x...", "expected 9 cells, got 8"),
        ("ox..x.....", "expected 9 cells, got 10"),
        ("ox..x...z", "unexpected character 'z'"),
        ("ox./.x../..", "3 rows of 3 cells"),
    ],
)
def test_malformed_boards_are_refused_quoting_the_input(text: str, reason: str) -> None:
    with pytest.raises(InvalidBoardError) as caught:
        Board.parse(text)
    assert not isinstance(caught.value, ImpossibleBoardError)
    assert repr(text) in str(caught.value)
    assert reason in str(caught.value)


IMPOSSIBLE = [
    ("oooo.x...", "o has 4 marks and x has 1"),
    ("xxx......", "o has 0 marks and x has 3"),
    ("oooxxx...", "both o and x have three in a row"),
    ("ooo.xx..x", "o has three in a row, yet x moved after the game was won"),
    ("xxxoo.oo.", "x has three in a row, yet o moved after the game was won"),
    ("ooo...ooo", "winning lines that share no cell"),
]


@pytest.mark.parametrize(("text", "reason"), IMPOSSIBLE)
def test_impossible_boards_name_the_rule_broken(text: str, reason: str) -> None:
    with pytest.raises(ImpossibleBoardError) as caught:
        Board.parse(text)
    assert isinstance(caught.value, ValueError)
    assert repr(text) in str(caught.value)
    assert reason in str(caught.value)


def test_exactly_the_reachable_boards_pass_validation() -> None:
    """Of all 3^9 fillings, those that pass with o first are the 5,478 reachable positions, and
    those that pass with x first are exactly their mark-swaps."""
    fillings = list(map("".join, itertools.product(".ox", repeat=9)))
    o_first = {cells for cells in fillings if impossibility(cells, "o", TICTACTOE) is None}
    x_first = {cells for cells in fillings if impossibility(cells, "x", TICTACTOE) is None}
    assert o_first == set(reference.reachable())
    assert x_first == {cells.translate(str.maketrans("ox", "xo")) for cells in o_first}
    # boards with more x than o pass only with x first; with more o only with o first
    assert all(cells.count("x") <= cells.count("o") for cells in o_first)


@pytest.mark.parametrize("first", [None, "o", "x"])
def test_a_batch_of_plain_boards_is_read_as_board_parse_reads_each(first: str | None) -> None:
    """`plain_boards` checks the usual boards of a batch together: every filling of 3x3 it takes
    is the board Board.parse makes of it, and it takes every one that Board.parse takes with no
    line on it; what it leaves (another notation, a line, counts or marks Board.parse refuses) is
    Board.parse's to read."""
    fillings = list(map("".join, itertools.product(".ox", repeat=9)))
    others = ["XO.......", "ox./.x./...", "ox.......:x", '{"board": "........."}', "é" * 9, "ox", 9]
    found = plain_boards([*fillings, *others], first, TICTACTOE)  # type: ignore[arg-type]
    assert found[len(fillings) :] == [None] * len(others)
    taken = 0
    for cells, board in zip(fillings, found, strict=False):
        try:
            parsed: Board | None = Board.parse(cells, first, TICTACTOE)  # type: ignore[arg-type]
        except ImpossibleBoardError:
            parsed = None
        if board is not None:
            taken += 1
            assert board == parsed
        elif parsed is not None:
            assert winner(cells, TICTACTOE) is not None  # only a board with a line is left to Board.parse
    assert taken == sum(1 for cells in fillings if winner(cells, TICTACTOE) is None and _parses(cells, first))
    assert plain_boards(fillings[:9], "z", TICTACTOE) == [None] * 9  # type: ignore[arg-type]


def _parses(cells: str, first: str | None) -> bool:
    try:
        Board.parse(cells, first, TICTACTOE)  # type: ignore[arg-type]
    except ImpossibleBoardError:
        return False
    return True


def test_x_first_convention() -> None:
    board = Board.parse("ox..x....")
    assert board.first == "x"
    assert board.to_move == "o"
    assert board.stored_cells == "xo..o...."
    assert Board.parse("ox.......").first == "o"
    assert Board.parse("ox.......").to_move == "o"


def test_finished_boards_are_valid_and_have_no_move() -> None:
    won = Board.parse("ooo.xx...")
    assert won.status == "o"
    assert won.to_move is None
    assert won.legal_moves() == ()
    drawn = Board.parse("oxooxxxoo")
    assert drawn.status == "draw"
    assert drawn.to_move is None


def test_push_checks_legality() -> None:
    board = Board.empty(TICTACTOE).push(4)
    assert str(board) == "....o...."
    with pytest.raises(InvalidMoveError, match="taken by o"):
        board.push(4)
    with pytest.raises(InvalidMoveError, match="is over"):
        Board.parse("ooo.xx...").push(3)


@st.composite
def reachable_boards(draw: st.DrawFn) -> Board:
    board = Board.empty(TICTACTOE, first=draw(st.sampled_from(["o", "x"])))
    for _ in range(draw(st.integers(0, 9))):
        moves = board.legal_moves()
        if not moves:
            break
        board = board.push(draw(st.sampled_from(moves)))
    return board


@given(reachable_boards(), st.sampled_from(["plain", "upper", "slashes", "dashes"]))
def test_parse_format_round_trip(board: Board, style: str) -> None:
    text, colon, first = str(board).partition(":")
    if style == "upper":
        text = text.upper()
    elif style == "slashes":
        text = "/".join(text[i : i + 3] for i in (0, 3, 6))
    elif style == "dashes":
        text = text.replace(".", "-")
    text += colon + first
    assert Board.parse(text) == board
    assert Board.parse(str(Board.parse(text))) == board


def test_every_reachable_board_round_trips_with_either_first_player() -> None:
    found = {Board.empty(TICTACTOE, first=first) for first in ("o", "x")}
    frontier = list(found)
    while frontier:
        board = frontier.pop()
        for move in board.legal_moves():
            child = board.push(move)
            if child not in found:
                found.add(child)
                frontier.append(child)
    assert len(found) == 2 * len(reference.reachable())  # each first player's reachable boards
    assert all(Board.parse(str(board)) == board for board in found)
    equal_counts_x_first = [b for b in found if b.first == "x" and b.cells.count("o") == b.cells.count("x")]
    assert equal_counts_x_first and all(str(b).endswith(":x") for b in equal_counts_x_first)
    assert not any(":" in str(b) for b in found if b.first == "o")


@pytest.mark.parametrize(
    ("text", "first", "message"),
    [
        ("xo.......:x", "o", "the board says x moved first, but first is o"),
        ("xo.......:y", None, "after ':' comes who moved first, o or x"),
        ("ox..x....:o", None, "x has more marks than o"),
    ],
)
def test_a_first_player_written_on_the_board_is_checked(text: str, first: str | None, message: str) -> None:
    with pytest.raises(InvalidBoardError, match=message):
        Board.parse(text, first)


@pytest.mark.parametrize(
    ("text", "move"),
    [("0", 0), ("8", 8), ("a1", 0), ("b2", 4), ("b3", 7), ("C3", 8), ("2,0", 2), ("0,2", 6), ("(1, 2)", 7)],
)
def test_move_notations(text: str, move: int) -> None:
    assert parse_move(text, TICTACTOE) == move


@pytest.mark.parametrize("text", ["9", "d1", "a4", "3,0", "", "b", "-1", "centre", "²", "a²"])
def test_bad_moves_are_refused_quoting_the_input(text: str) -> None:
    with pytest.raises(InvalidMoveError) as caught:
        parse_move(text, TICTACTOE)
    assert repr(text) in str(caught.value)


def test_move_names_round_trip() -> None:
    assert [move_name(i, TICTACTOE) for i in (0, 4, 7, 8)] == ["a1", "b2", "b3", "c3"]
    assert all(parse_move(move_name(i, TICTACTOE), TICTACTOE) == i for i in range(9))


def test_diagram_has_coordinates() -> None:
    assert diagram("ox..x....", TICTACTOE).splitlines() == [
        "    a   b   c",
        "1   o | x | .",
        "   ---+---+---",
        "2   . | x | .",
        "   ---+---+---",
        "3   . | . | .",
    ]


def test_normalize_keeps_spaces_as_empty_cells() -> None:
    assert normalize_cells("o   x    ", TICTACTOE) == "o...x...."


@pytest.mark.parametrize("name", ["3x3k3", "3x4k3", "4x3k3", "4x4k4", "2x9k3", "5x5k4", "4x6k4", "3x3k2", "2x3k1"])
def test_every_game_finds_each_line_the_reference_rules_find(name: str) -> None:
    """A line is read as one slice of the board's text: every line of every shape, any K."""
    from random import Random

    from ttt_db.game.definition import Game
    from ttt_db.game.rules import winner, winning_lines

    game = Game.parse(name)
    rules = reference.Rules(game.rows, game.columns, game.k)
    draw = Random(name)
    for _ in range(3000):
        cells = "".join(draw.choice("ox...") for _ in range(game.cells))
        for mark in ("o", "x"):
            expected = [tuple(line) for line in rules.lines if all(cells[i] == mark for i in line)]
            assert sorted(winning_lines(cells, mark, game)) == sorted(expected), (cells, mark)
        found = winner(cells, game)
        assert (found is None) == (rules.winner(cells) is None) and (found is None or winning_lines(cells, found, game))
