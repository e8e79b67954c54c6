"""`ttt-db search`: run the textbook searches from a board, show their work, and hold their
answers to the database's."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from cli.common import BoardCommand, DbOption, FirstOption, JsonOption, fail, first_mark, open_db, print_json
from cli.render import describe_moves, plural

if TYPE_CHECKING:
    from ttt_db.search_stats import Agreement, SearchReport

SCALES = {
    "wdl": "win/draw/loss: 1, 0, -1 from the first player's side",
    "shortest": "shortest victory: -2..3 from the first player's side",
    "heuristic": "heuristic: +-(1000 - plies) for a win, estimates at the depth limit, first player's side",
}


def report_lines(report: SearchReport, exact: Agreement) -> list[str]:
    counts = report.counts
    lines = [
        f"{report.algorithm} from {report.board}",
        f"score {report.score:+d} ({SCALES[report.scale]})",
        f"best moves: {describe_moves(report.best_moves)}",
        f"nodes {counts.nodes:,}, finished boards {counts.terminal:,}, cutoffs {counts.cutoffs:,}, "
        f"deepest ply {counts.deepest_ply}, {report.seconds:.3f} s",
    ]
    if counts.table_probes:
        lines.append(f"table: {plural(counts.table_probes, 'probe')}, {counts.table_hits_exact:,} exact hits, "
                     f"{counts.table_hits_bound:,} bound hits, {plural(counts.table_stores, 'store')}")
    if report.completed_depth is not None or report.algorithm.startswith("iddfs"):
        depth = "none" if report.completed_depth is None else f"abdls@{report.completed_depth}"
        lines.append(f"deepest completed iteration: {depth} (nodes per iteration: "
                     f"{', '.join(f'{n:,}' for n in report.iterations) or 'none'})")
    verdict = "agrees" if exact.agrees else "DISAGREES"
    lines.append(f"database: score {exact.exact_score:+d}, best moves {describe_moves(exact.exact_best)}: {verdict}")
    return lines


def compare_lines(rows: list[tuple[SearchReport, Agreement]]) -> list[str]:
    header = (f"{'algorithm':<26} {'score':>6} {'nodes':>9} {'finished':>9} {'cutoffs':>8} "
              f"{'table hits':>10} {'seconds':>8}  agrees")
    lines = [header]
    for report, exact in rows:
        counts = report.counts
        hits = counts.table_hits_exact + counts.table_hits_bound
        lines.append(f"{report.algorithm:<26} {report.score:>+6d} {counts.nodes:>9,} {counts.terminal:>9,} "
                     f"{counts.cutoffs:>8,} {hits:>10,} {report.seconds:>8.3f}  {'yes' if exact.agrees else 'NO'}")
    return lines


def _split(items: list[str], compare: bool, all_algorithms: bool) -> tuple[list[str], str]:
    """(algorithms, board) from the positional words: the board, when given, comes last."""
    from ttt_db.errors import UnknownAlgorithmError
    from ttt_db.search_stats import ALL_ALGORITHMS, parse_algorithm

    def is_algorithm(word: str) -> bool:
        try:
            parse_algorithm(word)
        except UnknownAlgorithmError:
            return False
        return True

    board = "........."
    if all_algorithms:
        if compare:
            raise fail("--all already compares every algorithm; give --compare with a list instead")
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
        parse_algorithm(item)  # UnknownAlgorithmError names the algorithms
    return items, board


def search(
    items: Annotated[list[str] | None, typer.Argument(
        metavar="ALGO... [BOARD]", show_default=False,
        help="An algorithm (minimax, minimax-tt, alphabeta, alphabeta-plain, their -shortest forms, dls@N, "
             "abdls@N, iddfs@SECONDS) and a board (the empty board by default).")] = None,
    compare: Annotated[bool, typer.Option("--compare", help="Several algorithms from the same board, in one table.")]
    = False,
    all_algorithms: Annotated[bool, typer.Option("--all", help="Compare every algorithm (dls/abdls at depth 3, "
                                                              "iddfs at 0.1 s).")] = False,
    first: FirstOption = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Run a search from BOARD and show its work: the score it found and on which scale, its best
    moves, the nodes it examined (calls of the search function, the root, finished boards and
    table hits included), finished boards, cutoffs, transposition-table use, the deepest ply and
    the time; beside it, the database's exact answer and whether the search agrees.

    Plain minimax from the empty board examines the whole game tree: 549,946 nodes."""
    from ttt_db.board import Board
    from ttt_db.search_stats import agreement, run_search

    algorithms, board_text = _split(list(items or []), compare, all_algorithms)
    board = Board.parse(board_text, first_mark(first))
    with open_db(db) as database:
        position = database.lookup(board.stored_cells)
        rows = []
        for algorithm in algorithms:
            report = run_search(algorithm, board.stored_cells)
            rows.append((report, agreement(report, position)))
    if as_json:
        documents = [report.to_dict() | {"board": board.cells, "first": board.first, "database": {
            "score": exact.exact_score, "best_moves": list(exact.exact_best)}, "agrees": exact.agrees}
            for report, exact in rows]
        print_json(documents if compare or all_algorithms else documents[0])
    elif compare or all_algorithms:
        typer.echo(f"from {board.cells} ({board.first} moved first); scores from {board.first}'s side")
        typer.echo("\n".join(compare_lines(rows)))
    else:
        typer.echo("\n".join(report_lines(*rows[0])))


def register(app: typer.Typer) -> None:
    app.command(cls=BoardCommand)(search)
