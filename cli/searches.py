"""`ttt-db search`: run the textbook searches from a board, show their work, and hold their
answers to the database's."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ttt_db.cli.common import chosen_game, open_db
from ttt_db.cli.exits import EXIT_NO, EXIT_UNDECIDED, BoardCommand, fail
from ttt_db.cli.options import (
    DbOption,
    DigestOption,
    FirstOption,
    GameOption,
    JsonOption,
    first_mark,
    max_seconds_option,
)
from ttt_db.cli.render import describe_moves, plural
from ttt_db.cli.streams import print_json
from ttt_db.game.definition import Game

if TYPE_CHECKING:
    from ttt_db.game.board import Board
    from ttt_db.search.algorithms import SearchAnswer
    from ttt_db.search.trace_check import TraceCheck
    from ttt_db.store.database import SolutionDatabase

UNBOUNDED_WARNING_NODES = 10**9
"""A search without --max-nodes or --max-seconds from a board whose full tree is larger says so first."""
SCALES = {
    "wdl": "win/draw/loss: 1, 0, -1 from the first player's side",
    "shortest": "shortest victory (-2..3 on 3x3) from the first player's side",
    "plies": "plies: +-(1000 - plies to the win), 0 a draw, estimates at the depth limit; first player's side",
}


def report_lines(answer: SearchAnswer) -> list[str]:
    report, exact, board = answer.report, answer.exact, answer.board
    counts = report.counts
    swapped = " (x moved first: searched with the marks swapped, o first)" if board.first == "x" else ""
    found = (
        describe_moves(answer.best_moves, board.game)
        if answer.best_moves_from == "search"
        else "not proved by this search (a pruned root proves its value only; the database's are below)"
    )
    lines = [
        f"{report.algorithm} from {board.cells}{swapped}",
        f"score {report.score:+d} ({SCALES[report.scale]})",
        f"best moves: {found}",
        f"nodes {counts.nodes:,}, finished boards {counts.terminal:,}, cutoffs {counts.cutoffs:,}, "
        f"deepest ply {counts.deepest_ply}, {report.seconds:.3f} s",
    ]
    if counts.table_probes:
        lines.append(
            f"table: {plural(counts.table_probes, 'probe')}, {plural(counts.table_hits_exact, 'exact hit')}, "
            f"{plural(counts.table_hits_bound, 'bound hit')}, {plural(counts.table_stores, 'store')}"
        )
    if report.completed_depth is not None or report.algorithm.startswith("iddfs"):
        depth = "none" if report.completed_depth is None else f"abdls@{report.completed_depth}"
        lines.append(
            f"deepest completed iteration: {depth} (nodes per iteration: "
            f"{', '.join(f'{n:,}' for n in report.iterations) or 'none'})"
        )
    verdict = "agrees" if exact.agrees else "DISAGREES"
    lines.append(
        f"database: score {exact.exact_score:+d}, best moves {describe_moves(exact.exact_best, board.game)}: {verdict}"
    )
    return lines


def compare_lines(answers: list[SearchAnswer]) -> list[str]:
    header = (
        f"{'algorithm':<26} {'scale':<8} {'score':>6} {'nodes':>9} {'finished':>9} {'cutoffs':>8} "
        f"{'table hits':>10} {'seconds':>8}  agrees"
    )
    lines = [header]
    for answer in answers:
        report, counts = answer.report, answer.report.counts
        hits = counts.table_hits_exact + counts.table_hits_bound
        lines.append(
            f"{report.algorithm:<26} {report.scale:<8} {report.score:>+6d} {counts.nodes:>9,} {counts.terminal:>9,} "
            f"{counts.cutoffs:>8,} {hits:>10,} {report.seconds:>8.3f}  {'yes' if answer.exact.agrees else 'NO'}"
        )
    return lines


def _split(items: list[str], compare: bool, all_algorithms: bool, game: Game) -> tuple[list[str], str]:
    """(algorithms, board) from the positional words: the board, when given, comes last."""
    from ttt_db.errors import UnknownAlgorithmError
    from ttt_db.search.algorithms import ALL_ALGORITHMS, parse_algorithm

    def is_algorithm(word: str) -> bool:
        try:
            parse_algorithm(word, game)
        except UnknownAlgorithmError:
            return False
        return True

    board = game.empty_board
    if all_algorithms:
        if compare:
            raise fail("--all already compares every algorithm; give --compare with a list instead")
        named = [item for item in items if is_algorithm(item)]
        if named:
            raise fail(
                f"--all runs every algorithm: give it a board, or {named[0]!r} without --all "
                f"(`ttt-db search {' '.join(named)}`)"
            )
        if len(items) > 1:
            raise fail("with --all, give at most a board")
        return list(ALL_ALGORITHMS), items[0] if items else board
    if items and len(items) > 1 and not is_algorithm(items[-1]):
        board = items.pop()
    if not items:
        raise fail("give a search algorithm (see `ttt-db search --help`), or --all")
    if len(items) > 1 and not compare:
        raise fail(f"give one algorithm and a board, or --compare for several ({', '.join(items)})")
    for item in items:
        parse_algorithm(item, game)  # UnknownAlgorithmError names the algorithms
    return items, board


def search(
    items: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="ALGO... [BOARD]",
            show_default=False,
            help="An algorithm (minimax, minimax-tt, alphabeta, alphabeta-plain, their -shortest forms, dls@N, "
            "abdls@N, iddfs@SECONDS) and a board (the empty board by default).",
        ),
    ] = None,
    compare: Annotated[
        bool, typer.Option("--compare", help="Several algorithms from the same board, in one table.")
    ] = False,
    all_algorithms: Annotated[
        bool, typer.Option("--all", help="Compare every algorithm (dls/abdls at depth 3, iddfs at 0.1 s).")
    ] = False,
    trace: Annotated[
        Path | None,
        typer.Option(
            "--trace",
            metavar="FILE",
            dir_okay=False,
            help="Write the search as JSON Lines: a header, then enter and exit events per node (docs/trace.md).",
        ),
    ] = None,
    max_nodes: Annotated[
        int | None,
        typer.Option(
            "--max-nodes",
            min=1,
            metavar="N",
            help="Stop a search past N nodes, without an answer (exit 4).",
            show_default=False,
        ),
    ] = None,
    max_seconds: Annotated[
        float | None, max_seconds_option("Stop a search past S seconds, without an answer (exit 4).")
    ] = None,
    first: FirstOption = None,
    db: DbOption = None,
    digest: DigestOption = None,
    game: GameOption = None,
    as_json: JsonOption = False,
) -> None:
    """Run a search from BOARD and show its work: the score it found and on which scale, its best
    moves, the nodes it examined (calls of the search function, the root, finished boards and
    table hits included), finished boards, cutoffs, transposition-table use, the deepest ply and
    the time; beside it, the database's exact answer and whether the search agrees.

    Plain minimax from the empty 3x3 board examines the whole game tree: 549,946 nodes; on 4x4
    the searches without a table take hours from the empty board (give a fuller board, or
    --max-nodes / --max-seconds; a search they stop has no answer: exit 4)."""
    game = chosen_game(game, db)
    from ttt_db.errors import SearchTimeout, WorkLimitError
    from ttt_db.game.board import Board
    from ttt_db.search.algorithms import search_board
    from ttt_db.search.engine import full_tree_nodes

    algorithms, board_text = _split(list(items or []), compare, all_algorithms, game)
    if trace is not None and len(algorithms) > 1:
        raise fail("--trace writes one search: give one algorithm")
    board = Board.parse(board_text, first_mark(first), game)
    empty = board.cells.count(".")
    if max_nodes is None and max_seconds is None and full_tree_nodes(empty, empty) > UNBOUNDED_WARNING_NODES:
        typer.echo(
            f"a search from a board with {empty} empty cells may examine up to {full_tree_nodes(empty, empty):,} "
            "nodes (its full tree; hours without a table); --max-nodes or --max-seconds bound it",
            err=True,
        )
    with open_db(db, game, digest) as database:
        try:
            if trace is None:
                answers = [
                    search_board(database, algorithm, board, node_limit=max_nodes, time_limit=max_seconds)
                    for algorithm in algorithms
                ]
            else:
                answers = [_traced(database, algorithms[0], board, trace, max_nodes, max_seconds)]
        except WorkLimitError:
            raise fail(f"the search passed --max-nodes {max_nodes:,} without an answer", EXIT_UNDECIDED) from None
        except SearchTimeout:
            raise fail(f"the search passed --max-seconds {max_seconds:g} without an answer", EXIT_UNDECIDED) from None
    if as_json:
        documents = [answer.to_document() for answer in answers]
        print_json(documents if compare or all_algorithms else documents[0])
    elif compare or all_algorithms:
        typer.echo(
            f"from {board.cells} ({board.first} moved first); every score from {board.first}'s side, "
            "on its algorithm's scale (wdl: 1, 0, -1; shortest: shortest victory; plies: 1000 - plies to the win)"
        )
        typer.echo("\n".join(compare_lines(answers)))
        if any(answer.report.algorithm.startswith("iddfs") for answer in answers):
            typer.echo(
                "iddfs searches as deep as its seconds allow: its nodes, depth and score follow the machine's "
                "speed and load, and change from run to run"
            )
    else:
        typer.echo("\n".join(report_lines(answers[0])))


def _traced(
    database: SolutionDatabase,
    algorithm: str,
    board: Board,
    path: Path,
    max_nodes: int | None,
    max_seconds: float | None,
) -> SearchAnswer:
    """The search, written to `path` as a trace of the board as given (an x-first board's search
    runs on the swapped board; its trace says `"first": "x"` and shows the marks as given)."""
    from ttt_db.search.algorithms import scale_of, search_board
    from ttt_db.search.trace import TraceWriter, header

    game = database.game
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as stream:
        first = header(algorithm.strip().lower(), board.cells, scale_of(algorithm, game), board.first, game.name)
        return search_board(
            database,
            algorithm,
            board,
            tracer=TraceWriter(stream, first, swapped=board.swapped),
            node_limit=max_nodes,
            time_limit=max_seconds,
        )


def check_trace(
    file: Annotated[
        Path,
        typer.Argument(
            metavar="FILE",
            dir_okay=False,
            show_default=False,
            help="A trace in the JSON Lines format of docs/trace.md ('-' for stdin).",
        ),
    ],
    show: Annotated[int, typer.Option("--show", min=0, metavar="N", help="How many failing nodes to list.")] = 10,
    db: DbOption = None,
    digest: DigestOption = None,
    game: GameOption = None,
    as_json: JsonOption = False,
) -> None:
    """Check a search's trace, written by `ttt-db search --trace` or by any program, node by node
    against the database: a value inside its window must be exact, one at or below alpha an upper
    bound, one at or above beta a lower bound, one without a window exact; only nodes marked as
    estimates (a depth limit reached) are exempt.

    Exit 0 when every node holds, 1 when any fails, 2 for a malformed trace."""
    game = chosen_game(game, db)
    import sys

    from ttt_db.search.trace_check import check_trace as check
    from ttt_db.search.trace_check import exact_from, trace_lines

    with open_db(db, game, digest) as database:
        exact = exact_from(database)
        if str(file) == "-":
            result = check(trace_lines(sys.stdin.buffer), exact, game)
        else:
            with file.open("rb") as stream:
                result = check(trace_lines(stream), exact, game)
    if as_json:
        print_json(result.to_dict())
    else:
        typer.echo("\n".join(trace_check_lines(result, show, game)))
    if not result.ok:
        raise typer.Exit(EXIT_NO)


def trace_check_lines(result: TraceCheck, show: int, game: Game) -> list[str]:
    breaking = "node breaks" if result.violation_count == 1 else "nodes break"
    verdict = "ok" if result.ok else f"FAILED: {result.violation_count:,} {breaking} a rule"
    lines = [
        f"{result.algorithm} from {result.board} ({result.scale} scale): {verdict}",
        f"{plural(result.nodes, 'node')}, {result.checked:,} checked, {result.estimates:,} estimates exempt",
    ]
    for violation in result.violations[:show]:
        window = (
            "no window"
            if violation.alpha is None or violation.beta is None
            else f"window ({violation.alpha}, {violation.beta})"
        )
        lines += [
            "",
            f"  node {violation.node} (record {violation.record}), {violation.board}, after "
            f"{describe_moves(violation.moves, game) if violation.moves else 'the root'}",
            f"    {window}: returned {violation.value}, exact {violation.exact}",
            f"    {violation.rule}",
        ]
    if len(result.violations) > show or result.violation_count > len(result.violations):
        lines.append(f"  ({result.violation_count - min(show, len(result.violations)):,} more; --show N for more)")
    return lines


def register(app: typer.Typer) -> None:
    app.command(cls=BoardCommand)(search)
    app.command("check-trace")(check_trace)
