"""The tests' one independent reference: the m,n,k rules, a brute-force solver and the textbook
searches, written here from their definitions in docs/ and sharing no code with ttt_db.

Searches are written negamax style, values from the side to move, while ttt_db's engine keeps
values from o's side: two different writings of one definition, so a count that agrees means
something. Every search counts its calls, the root included.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache, cached_property
from math import factorial

WIN = 1000  # the plies scale: a win p plies below the root scores WIN - p


@dataclass(frozen=True)
class Rules:
    rows: int = 3
    columns: int = 3
    k: int = 3

    @property
    def cells(self) -> int:
        return self.rows * self.columns

    @property
    def empty(self) -> str:
        return "." * self.cells

    @cached_property
    def lines(self) -> list[list[int]]:
        return _lines(self.rows, self.columns, self.k)

    def winner(self, board: str) -> str | None:
        for line in self.lines:
            mark = board[line[0]]
            if mark != "." and all(board[i] == mark for i in line):
                return mark
        return None

    def mover(self, board: str) -> str:
        return "o" if board.count("o") == board.count("x") else "x"

    def children(self, board: str) -> list[tuple[int, str]]:
        """(move, board after it) in index order; none once the game is over."""
        if self.winner(board) is not None:
            return []
        return self.moves_of_unfinished(board)

    def moves_of_unfinished(self, board: str) -> list[tuple[int, str]]:
        """`children` of a board known to have no winner."""
        mark = self.mover(board)
        return [(i, board[:i] + mark + board[i + 1 :]) for i in range(self.cells) if board[i] == "."]

    def finished(self, board: str) -> bool:
        return self.winner(board) is not None or "." not in board

    def images(self, board: str) -> set[str]:
        """The board under every symmetry of the rectangle (8 on a square, 4 otherwise)."""
        grid = [board[r * self.columns : (r + 1) * self.columns] for r in range(self.rows)]
        shapes = [grid, [row[::-1] for row in grid], grid[::-1], [row[::-1] for row in grid[::-1]]]
        if self.rows == self.columns:
            transposed = ["".join(row[c] for row in grid) for c in range(self.columns)]
            shapes += [transposed, [row[::-1] for row in transposed], transposed[::-1]]
            shapes.append([row[::-1] for row in transposed[::-1]])
        return {"".join(shape) for shape in shapes}


TICTACTOE = Rules()


@cache
def _lines(rows: int, columns: int, k: int) -> list[list[int]]:
    found = []
    for r in range(rows):
        for c in range(columns):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                if 0 <= r + dr * (k - 1) < rows and 0 <= c + dc * (k - 1) < columns:
                    line = [(r + dr * i) * columns + c + dc * i for i in range(k)]
                    if line not in found:
                        found.append(line)
    return found


# --- the brute-force solver ------------------------------------------------------------------


@dataclass(frozen=True)
class Solution:
    score: int  # from o's side: 1, 0, -1
    sv_score: int  # shortest victory, from o's side
    remoteness: int


class Solver:
    """Plain minimax over every board: the winner hurries, the loser delays, a draw lasts until
    the board is full; shortest victory (n + 2 - m) / 2 for o winning at move m, (m - n - 1) / 2 for
    x. `solved` holds every board solved so far: after the empty board, every reachable board."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.solved: dict[str, Solution] = {}

    def __call__(self, board: str) -> Solution:
        known = self.solved.get(board)
        if known is None:
            known = self.solved[board] = self._solve(board)
        return known

    def _solve(self, board: str) -> Solution:
        rules = self.rules
        moves_made = rules.cells - board.count(".")
        won = rules.winner(board)
        if won is not None:
            sv = (rules.cells + 2 - moves_made) // 2 if won == "o" else (moves_made - rules.cells - 1) // 2
            return Solution(1 if won == "o" else -1, sv, 0)
        children = rules.moves_of_unfinished(board)
        if not children:
            return Solution(0, 0, 0)
        results = [self(child) for _, child in children]
        sign = 1 if rules.mover(board) == "o" else -1
        best = max(sign * r.score for r in results)
        keeping = [r.remoteness for r in results if sign * r.score == best]
        sv = sign * max(sign * r.sv_score for r in results)
        return Solution(sign * best, sv, 1 + (min(keeping) if best > 0 else max(keeping)))


@cache
def solver(rules: Rules = TICTACTOE) -> Solver:
    """The one solver of a game's rules, shared by every test that asks."""
    return Solver(rules)


def best_moves(board: str, rules: Rules = TICTACTOE, *, shortest: bool = False) -> tuple[int, ...]:
    solve = solver(rules)

    def value(solved: Solution) -> int:
        return solved.sv_score if shortest else solved.score

    goal = value(solve(board))
    return tuple(move for move, child in rules.children(board) if value(solve(child)) == goal)


def reachable(rules: Rules = TICTACTOE) -> list[str]:
    """Every board reachable from the empty one, breadth first."""
    order = [rules.empty]
    seen = set(order)
    for board in order:  # grows as it goes
        for _, child in rules.children(board):
            if child not in seen:
                seen.add(child)
                order.append(child)
    return order


@cache
def tree_nodes_below(board: str, rules: Rules = TICTACTOE) -> tuple[int, ...]:
    """Tree nodes at each depth 0..cells in the subtree of `board` (itself included)."""
    counts = [0] * (rules.cells + 1)
    counts[rules.cells - board.count(".")] = 1
    for _, child in rules.children(board):
        counts = [a + b for a, b in zip(counts, tree_nodes_below(child, rules), strict=True)]
    return tuple(counts)


def census_row(rules: Rules) -> dict[str, object]:
    """What `ttt-db census` records of a game, by brute force: the empty board's value for o and
    its remoteness, positions and classes, the positions in play by value for the side to move,
    decision positions, the longest forced win, and o's winning first moves."""
    solve = solver(rules)
    boards = reachable(rules)
    empty = solve(rules.empty)
    in_play = [b for b in boards if not rules.finished(b)]

    def value(board: str) -> str:
        score = solve(board).score * (1 if rules.mover(board) == "o" else -1)
        return {1: "win", 0: "draw", -1: "loss"}[score]

    values = [value(b) for b in in_play]
    won = [b for b, v in zip(in_play, values, strict=True) if v == "win"]
    return {
        "value": {1: "win", 0: "draw", -1: "loss"}[empty.score],
        "remoteness": empty.remoteness,
        "positions": len(boards),
        "classes": len({min(rules.images(b)) for b in boards}),
        "wins": len(won),
        "draws": values.count("draw"),
        "losses": values.count("loss"),
        "decision": sum(len(best_moves(b, rules)) < b.count(".") for b in in_play),
        "longest": max((solve(b).remoteness for b in won), default=None),
        "winning_first_moves": list(best_moves(rules.empty, rules)) if empty.score > 0 else [],
    }


# --- the textbook searches, counted ----------------------------------------------------------


@dataclass
class Counted:
    calls: int = 0
    table: dict[str, tuple[float, float]] = field(default_factory=dict)


def _terminal_for_mover(board: str, rules: Rules, shortest: bool) -> int | None:
    """A finished board's value for the side that would move (who has just lost, or a draw)."""
    won = rules.winner(board)
    if won is None:
        return 0 if "." not in board else None
    moves_made = rules.cells - board.count(".")
    if not shortest:
        return -1
    o_side = (rules.cells + 2 - moves_made) // 2 if won == "o" else (moves_made - rules.cells - 1) // 2
    return o_side if rules.mover(board) == "o" else -o_side


def aima_alpha_beta(board: str, rules: Rules = TICTACTOE, *, shortest: bool = False) -> tuple[int, int]:
    """(value for the side to move, calls): AIMA's alpha_beta_search with its root as an ordinary
    node of the search, the window open (-inf, +inf), moves in index order."""
    counted = Counted()

    def search(node: str, alpha: float, beta: float) -> float:
        counted.calls += 1
        value = _terminal_for_mover(node, rules, shortest)
        if value is not None:
            return value
        best = -float("inf")
        for _, child in rules.children(node):
            best = max(best, -search(child, -beta, -alpha))
            if best >= beta:
                return best
            alpha = max(alpha, best)
        return best

    value = search(board, -float("inf"), float("inf"))
    return int(value), counted.calls


def seed_alpha_beta(board: str, rules: Rules = TICTACTOE, *, shortest: bool = False) -> tuple[int, int]:
    """(value for the side to move, calls): alpha-beta with a bounds table as docs/search.md defines
    it: the root called with the window set to the score range; a finished board scored first and
    never stored; an entry (lower, upper) for the side to move, the score range when absent; exact
    returned, a bound outside the window returned, otherwise the window narrowed; the result stored
    as an upper bound at or below the narrowed alpha, a lower bound at or above the narrowed beta,
    exact inside, the other bound kept; written for every symmetric image."""
    counted = Counted()
    if shortest:
        n = rules.cells
        o_low, o_high = (min(2 * rules.k, n) - n - 1) // 2, (n + 2 - min(2 * rules.k - 1, n)) // 2
    else:
        o_low, o_high = -1, 1

    def score_range(node: str) -> tuple[int, int]:
        return (o_low, o_high) if rules.mover(node) == "o" else (-o_high, -o_low)

    def search(node: str, alpha: float, beta: float) -> float:
        counted.calls += 1
        value = _terminal_for_mover(node, rules, shortest)
        if value is not None:
            return value
        lower, upper = counted.table.get(node, score_range(node))
        if lower == upper:
            return lower
        if upper <= alpha:
            return upper
        if lower >= beta:
            return lower
        alpha, beta = max(alpha, lower), min(beta, upper)
        narrowed_alpha = alpha
        best = -float("inf")
        for _, child in rules.children(node):
            best = max(best, -search(child, -beta, -alpha))
            alpha = max(alpha, best)
            if alpha >= beta:
                break
        if best <= narrowed_alpha:
            entry = (lower, best)
        elif best >= beta:
            entry = (best, upper)
        else:
            entry = (best, best)
        for image in rules.images(node):
            counted.table[image] = entry
        return best

    value = search(board, *score_range(board))
    return int(value), counted.calls


def minimax_table_calls(board: str, rules: Rules = TICTACTOE) -> int:
    """Calls of a minimax that remembers each board's value: the root, then every move of each
    distinct unfinished board below it, each board expanded once."""
    seen: set[str] = set()
    calls = 1
    stack = [board]
    while stack:
        node = stack.pop()
        if node in seen or rules.finished(node):
            continue
        seen.add(node)
        children = rules.children(node)
        calls += len(children)
        stack += [child for _, child in children]
    return calls


def line_score(board: str, me: str) -> float:
    """ai14s's score of the board after my move (docs/ais.md, rules 1-4), on 3x3."""
    lines = TICTACTOE.lines

    def count(mine: int, theirs: int) -> int:
        total = 0
        for line in lines:
            cells = [board[i] for i in line]
            if cells.count(me) == mine and cells.count(".") == 3 - mine - theirs:
                total += 1
        return total

    if count(3, 0):
        return 300
    threats = count(0, 2)
    if threats == 0 and count(2, 0) >= 2:
        return 200
    marks = 9 - board.count(".")
    corners = (board[0] == board[8] == "o") or (board[2] == board[6] == "o")
    if board[4] == "x" and corners and any(board[e] == "x" for e in (1, 3, 5, 7)) and marks == 4:
        return 100
    return -100 * threats + (2 if count(2, 0) == 1 else 0) + 0.5 * count(1, 0) - count(0, 1)


def depth_limited_choice(board: str, depth: int, *, lines_at_limit: bool) -> tuple[int, ...]:
    """The moves a depth-limited minimax on 3x3 chooses: every move searched `depth` plies below it,
    no pruning; a win p plies below the root WIN - p; an unfinished board at the limit 0, or with
    `lines_at_limit` ai14s's score for the player who just moved."""
    rules = TICTACTOE

    def value(node: str, ply: int) -> float:  # for the side to move at `node`
        if rules.winner(node) is not None:
            return ply - WIN
        if "." not in node:
            return 0
        if ply > depth:
            if not lines_at_limit:
                return 0
            just_moved = "x" if rules.mover(node) == "o" else "o"
            return -line_score(node, just_moved)
        return max(-value(child, ply + 1) for _, child in rules.children(node))

    scored = [(move, -value(child, 1)) for move, child in rules.children(board)]
    top = max(v for _, v in scored)
    return tuple(move for move, v in scored if v == top)


# --- what an export record holds beyond the solution -----------------------------------------


def paths(rules: Rules = TICTACTOE) -> dict[str, int]:
    """How many move sequences from the empty board reach each reachable board."""
    counts = {rules.empty: 1}
    for board in reachable(rules):  # breadth first: every parent before its children
        for _, child in rules.children(board):
            counts[child] = counts.get(child, 0) + counts[board]
    return counts


@cache
def _playout_counts(board: str, rules: Rules) -> tuple[int, int, int]:
    """Of the (empty cells)! equally likely orders of uniformly random play from `board`, how many
    o wins, x wins and draw (each of k moves leads to (empty - 1)! of them)."""
    won = rules.winner(board)
    if won is not None or "." not in board:
        orders = factorial(board.count("."))
        return orders * (won == "o"), orders * (won == "x"), orders * (won is None)
    counts = [_playout_counts(child, rules) for _, child in rules.moves_of_unfinished(board)]
    return sum(c[0] for c in counts), sum(c[1] for c in counts), sum(c[2] for c in counts)


def playout(board: str, rules: Rules = TICTACTOE) -> tuple[float, float, float]:
    """(o wins, x wins, draw): exact odds when both sides play uniformly at random from `board`."""
    orders = factorial(board.count("."))
    o_wins, x_wins, draws = _playout_counts(board, rules)
    return o_wins / orders, x_wins / orders, draws / orders


def export_record(board: str, rules: Rules, paths_to: dict[str, int]) -> dict[str, object]:
    """The fields of an export record (docs/json.md) for `board` (o first), derived here."""
    solve = solver(rules)
    solved = solve(board)
    won = rules.winner(board)
    status = won or ("draw" if "." not in board else "playing")
    mover = rules.mover(board)
    playing = status == "playing"
    signed = solved.score if mover == "o" else -solved.score
    value = (
        ("win" if signed > 0 else "loss" if signed < 0 else "draw")
        if playing
        else ("draw" if status == "draw" else "loss")
    )
    images = rules.images(board)
    return {
        "board": board,
        "to_move": mover if playing else None,
        "status": status,
        "score": solved.score,
        "value": value,
        "remoteness": solved.remoteness,
        "sv_score": solved.sv_score,
        "best_moves": list(best_moves(board, rules)) if playing else [],
        "best_moves_shortest": list(best_moves(board, rules, shortest=True)) if playing else [],
        "playout": list(playout(board, rules)),
        "paths": paths_to[board],
        "canonical": min(images),
        "depth": rules.cells - board.count("."),
        "orbit": len(images),
    }


def first_broken_node(trace_lines: list[str], viewpoint: str = "first") -> int:
    """The id of the first node of a trace (header first, tic-tac-toe, o first, win/draw/loss
    scale) whose value breaks the rules of fail-soft alpha-beta against this solver's values, on
    the trace's viewpoint: the first player's, or the mover's (a negamax)."""
    import json

    bounds = {"-inf": -float("inf"), "inf": float("inf")}
    open_nodes: dict[int, dict[str, object]] = {}
    for line in trace_lines[1:]:
        event = json.loads(line)
        if event["type"] == "enter":
            open_nodes[event["id"]] = event
            continue
        node = open_nodes.pop(event["id"])
        board = str(node["board"])
        sign = -1 if viewpoint == "mover" and TICTACTOE.mover(board) == "x" else 1
        exact = sign * solver()(board).score
        alpha = bounds.get(node["alpha"], node["alpha"])  # type: ignore[call-overload]
        beta = bounds.get(node["beta"], node["beta"])  # type: ignore[call-overload]
        value = event["value"]
        fine = exact <= value if value <= alpha else exact >= value if value >= beta else exact == value
        if not fine:
            return int(event["id"])
    raise AssertionError("the search made no mistake")


@dataclass(frozen=True)
class StrongFailureSeen:
    board: str
    chosen: tuple[int, ...]
    best: tuple[int, ...]


@dataclass(frozen=True)
class StrongChecked:
    total: int
    correct: int
    failures: list[StrongFailureSeen]


def check_strong(ai, boards, best_moves) -> StrongChecked:
    """The strong check by its definition: at each board the AI's candidates are a subset of
    `best_moves[board]`; failures shallowest first (fewest marks, then board text)."""
    failures = []
    for board in boards:
        chosen = tuple(sorted(set(ai(board))))
        if not set(chosen) <= set(best_moves[board]):
            failures.append(StrongFailureSeen(board, chosen, tuple(sorted(best_moves[board]))))
    failures.sort(key=lambda failure: (len(failure.board) - failure.board.count("."), failure.board))
    return StrongChecked(len(boards), len(boards) - len(failures), failures)


@cache
def decision_boards(rules: Rules = TICTACTOE) -> tuple[str, ...]:
    """The boards still on where not every legal move is a best move."""
    return tuple(
        b for b in reachable(rules) if rules.children(b) and len(best_moves(b, rules)) < len(rules.children(b))
    )


def strong_check_of(ai, rules: Rules = TICTACTOE) -> StrongChecked:
    """The strong check of `ai` by its definition, over the reference's own decision boards."""
    boards = decision_boards(rules)
    return check_strong(ai, boards, {board: best_moves(board, rules) for board in boards})


def check_weak(ai, rules: Rules = TICTACTOE) -> dict[str, tuple[bool, int]]:
    """The weak check by its definition (docs/checks.md), on a game whose value is a draw: from the
    empty board the AI never loses, as o and as x; a depth-first search following every candidate
    of the AI and every move of the opponent, a board already examined skipped, stopping at the
    first lost game. Per side: (solved, distinct boards examined)."""
    found = {}
    for side in ("o", "x"):
        examined: set[str] = set()
        stack = [rules.empty]
        lost = False
        while stack and not lost:
            board = stack.pop()
            if board in examined:
                continue
            examined.add(board)
            won = rules.winner(board)
            if won is not None:
                lost = won != side
                continue
            if "." not in board:
                continue
            mark = rules.mover(board)
            moves = ai(board) if mark == side else [i for i in range(rules.cells) if board[i] == "."]
            stack += [board[:i] + mark + board[i + 1 :] for i in moves]
        found[side] = (not lost, len(examined))
    return found


def policy_expectations(policy, rules: Rules = TICTACTOE) -> dict[str, dict[str, Fraction]]:
    """A policy's expected score (+1 win, -1 loss) from the empty board, per seat, against the
    perfect player (uniform among this module's best moves), a best response (the opponent
    minimising the policy's expectation) and uniform random play: a plain recursive expectation
    over the game tree (memoised by board: the expectation from a board does not depend on the moves
    that reached it). `policy(board) -> {move: probability}`; "value" is the start's for the seat."""
    return {seat: _seat_expectations(policy, rules, seat) for seat in ("o", "x")}


def _seat_expectations(policy, rules: Rules, seat: str) -> dict[str, Fraction]:
    solve = solver(rules)

    @cache
    def expect(board: str, opponent: str) -> Fraction:
        won = rules.winner(board)
        if won is not None:
            return Fraction(1 if won == seat else -1)
        children = rules.children(board)
        if not children:
            return Fraction(0)
        if rules.mover(board) == seat:
            moves = policy(board).items()
            return sum((Fraction(p) * expect(play_at(board, m, seat), opponent) for m, p in moves), Fraction(0))
        if opponent == "best_response":
            return min(expect(child, opponent) for _, child in children)
        if opponent == "perfect":
            goal = solve(board).score
            chosen = [child for _, child in children if solve(child).score == goal]
        else:
            chosen = [child for _, child in children]
        return sum((expect(child, opponent) for child in chosen), Fraction(0)) / len(chosen)

    found = {opponent: expect(rules.empty, opponent) for opponent in ("perfect", "best_response", "random")}
    found["value"] = Fraction(solve(rules.empty).score * (1 if seat == "o" else -1))
    return found


def play_at(board: str, move: int, mark: str) -> str:
    return board[:move] + mark + board[move + 1 :]


def match_expectation(mine, theirs, seat: str, rules: Rules = TICTACTOE) -> tuple[Fraction, Fraction, Fraction]:
    """(win, draw, loss) probabilities of policy `mine` in `seat` against policy `theirs`, from the
    empty board: a plain recursion over the game tree, memoised by board."""

    @cache
    def expect(board: str) -> tuple[Fraction, Fraction, Fraction]:
        won = rules.winner(board)
        if won is not None:
            return (Fraction(1), Fraction(0), Fraction(0)) if won == seat else (Fraction(0), Fraction(0), Fraction(1))
        if not rules.children(board):
            return (Fraction(0), Fraction(1), Fraction(0))
        mover = rules.mover(board)
        policy = mine if mover == seat else theirs
        total = [Fraction(0)] * 3
        for move, p in policy(board).items():
            for i, share in enumerate(expect(play_at(board, move, mover))):
                total[i] += Fraction(p) * share
        return (total[0], total[1], total[2])

    return expect(rules.empty)
