"""Human-readable text for boards, moves, positions and build summaries (the CLI's formatting,
no I/O). Every number names its viewpoint: `score` and `sv_score` are from the first player's
side, `value` and remoteness from the mover's."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ttt_db.game.definition import Game

if TYPE_CHECKING:
    from ttt_db.build.census import CensusPlan, CensusRow
    from ttt_db.game.rules import Value
    from ttt_db.outputs.stats import SolutionStats
    from ttt_db.play.line import Line
    from ttt_db.position import Position
    from ttt_db.store.figures import DepthFigures


def plural(count: int, noun: str, plural_form: str | None = None) -> str:
    """`1 board`, `2 boards`, `1,366 boards`."""
    return f"{count:,} {noun if count == 1 else plural_form or noun + 's'}"


def shares(counts: Sequence[int]) -> list[str]:
    """Each count's share of their sum to 0.1%, rounded so that the shares add up to 100.0%
    (largest remainders first); all 0.0% when the sum is 0."""
    total = sum(counts)
    if total == 0:
        return ["0.0%" for _ in counts]
    exact = [1000 * count / total for count in counts]
    tenths = [int(share) for share in exact]
    by_remainder = sorted(range(len(counts)), key=lambda i: exact[i] - tenths[i], reverse=True)
    for i in by_remainder[: 1000 - sum(tenths)]:
        tenths[i] += 1
    return [f"{tenth / 10:.1f}%" for tenth in tenths]


def diagram(cells: str, game: Game) -> str:
    """The board drawn with its column letters and row numbers."""
    width = game.columns
    lines = ["    " + "   ".join(game.move_name(column)[0] for column in range(width))]
    for row in range(game.rows):
        if row:
            lines.append("   " + "+".join(["---"] * width))
        lines.append(f"{row + 1:<2}  " + " | ".join(cells[width * row : width * row + width]))
    return "\n".join(lines)


def indented_diagram(cells: str, indent: str, game: Game) -> list[str]:
    return [indent + line for line in diagram(cells, game).splitlines()]


def describe_moves(moves: Iterable[int], game: Game) -> str:
    """`4 (b2), 7 (b3)`: indices with their names; `none` for no move."""
    return ", ".join(game.move_label(move) for move in moves) or "none"


PLIES_COUNTED = "plies counted from this board, the move included"
"""How every text output counts a move's plies (`MoveAnalysis.outcome`); JSON's remoteness is after the move."""


def outcome_line(position: Position) -> str:
    """`o to move: o wins in 3 plies with best play`, or `game over: x has won (no move)`."""
    if position.status != "playing":
        return f"game over: {position.outcome} (no move)"
    return f"{position.to_move} to move: {position.outcome}"


def first_mover_note(position: Position) -> str:
    if position.first == "o":
        return "o moved first"
    if position.cells.count("x") > position.cells.count("o"):
        return "x moved first (it has one more mark than o)"
    return "x moved first (--first x)"


def score_line(position: Position) -> str:
    return (
        f"score {position.score:+d}, shortest-victory score {position.sv_score:+d} "
        f"(from {position.first}'s side, the first player)"
    )


def _header(position: Position) -> list[str]:
    """The board drawn, then who is to move and what it is worth, then who moved first."""
    return [
        diagram(position.cells, position.game),
        "",
        outcome_line(position),
        first_mover_note(position),
        score_line(position),
    ]


def best_moves_text(position: Position, *, shortest: bool) -> str:
    lines = _header(position)
    if position.status == "playing":
        moves = position.best_moves_shortest if shortest else position.best_moves
        label = "best moves (shortest)" if shortest else "best moves"
        lines.append(f"{label}: {describe_moves(moves, position.game)}")
    return "\n".join(lines)


def show_text(position: Position) -> str:
    lines = _header(position)
    if position.status != "playing":
        return "\n".join(lines)
    lines += ["", "move  name  outcome       best"]
    for analysis in position.moves_best_first():
        best = "*" if analysis.move in position.best_moves else ""
        shortest = "shortest" if analysis.move in position.best_moves_shortest and best else ""
        lines.append(f"{analysis.move:>4}  {analysis.name:<4}  {analysis.outcome:<12}  {best} {shortest}".rstrip())
    lines.append(f"(outcome for {position.to_move}, the player making the move; {PLIES_COUNTED})")
    return "\n".join(lines)


def figures_text(figures: dict[str, Any]) -> list[str]:
    """The build's figures; a game stored as its ranked core alone counts no tree nodes (no paths)."""
    values = figures.get("values", {})
    canonical_values = figures.get("values_canonical", {})
    counted = [
        f"tree nodes:          {figures['tree_nodes']:,}" if "tree_nodes" in figures else "",
        f"positions:           {figures['positions']:,} ({figures['canonical_positions']:,} up to symmetry)",
        f"still in play:       {figures['playing']:,} ({figures['playing_canonical']:,} up to symmetry)",
        f"decision positions:  {figures['decision']:,} ({figures['decision_canonical']:,} up to symmetry)",
    ]
    return [
        *(line for line in counted if line),
        "value for the mover: "
        f"{values.get('win', 0):,} win / {values.get('loss', 0):,} loss / {values.get('draw', 0):,} draw "
        f"({canonical_values.get('win', 0):,} / {canonical_values.get('loss', 0):,} / "
        f"{canonical_values.get('draw', 0):,} up to symmetry)",
        *_empty_board_line(figures.get("empty_board")),
    ]


def _empty_board_line(empty: dict[str, Any] | None) -> list[str]:
    if empty is None:
        return []
    value = {"win": "o wins", "loss": "x wins", "draw": "draw"}[empty["value"]]
    return [f"empty board:         {value}, {plural(empty['remoteness'], 'ply', 'plies')} with best play"]


def depth_table(depths: Sequence[DepthFigures]) -> list[str]:
    """Per depth: tree nodes, positions, canonical positions, in columns as wide as the numbers."""
    trees = [f"{row.tree_nodes:,}" if row.tree_nodes is not None else "-" for row in depths]
    width = max(len("tree nodes"), *(len(tree) for tree in trees))
    wide = max(len("positions"), *(len(f"{row.positions:,}") for row in depths))
    lines = [f"depth  {'tree nodes':>{width}}  {'positions':>{wide}}  {'canonical':>{wide}}"]
    for row, tree in zip(depths, trees, strict=True):
        lines.append(f"{row.depth:>5}  {tree:>{width}}  {row.positions:>{wide},}  {row.canonical_positions:>{wide},}")
    return lines


def line_text(found: Line) -> str:
    """`ttt-db line`: the start's outcome, then one row per position, then the final board."""
    game = found.start.game
    start = found.plies[0].position
    lines = [outcome_line(start), first_mover_note(start), ""]
    lines.append(f"{'move':>4}  {'to move':<8}{'value':<7}{'plies left':>10}  played  ties")
    for ply in found.plies[:-1]:
        position = ply.position
        played = game.move_name(ply.move) if ply.move is not None else ""
        ties = ", ".join(game.move_name(move) for move in ply.ties)
        lines.append(
            f"{position.depth + 1:>4}  {position.to_move or '':<8}{position.value or '':<7}{position.remoteness:>10}"
            f"  {played:<6}  {ties}"
        )
    end = found.end
    lines += ["", outcome_line(end), diagram(end.cells, game)]
    return "\n".join(lines)


def stats_text(stats: SolutionStats) -> str:
    """`ttt-db stats`: per depth, then by remoteness, the extremes, the decision positions."""
    game = stats.game
    finished = sum(depth.finished for depth in stats.depths)
    lines = [
        f"{game.name}: {stats.in_play + finished:,} positions, {stats.in_play:,} in play and {finished:,} finished",
        "",
        "positions in play by their value for the side to move (classes up to symmetry in brackets)",
    ]
    values: tuple[Value, ...] = ("win", "draw", "loss")
    counted = [[f"{depth.positions[v]:,} ({depth.classes[v]:,})" for v in values] for depth in stats.depths]
    wide = max([20, *(len(text) for row in counted for text in row)]) + 2  # columns apart at any size
    ended = max([8, *(len(f"{depth.finished:,}") for depth in stats.depths)]) + 2
    lines.append(f"{'depth':>5}  {'to move':<8}" + "".join(f"{v:>{wide}}" for v in values) + f"{'finished':>{ended}}")
    for depth, row in zip(stats.depths, counted, strict=True):
        cells = "".join(f"{text:>{wide}}" for text in row)
        lines.append(f"{depth.depth:>5}  {depth.to_move:<8}{cells}{depth.finished:>{ended},}")
    lines += ["", "positions in play by value and remoteness (plies to the end with best play)"]
    remotenesses = sorted({remoteness for _, remoteness in stats.by_remoteness})
    by_plies = [[stats.by_remoteness.get((v, remoteness), (0, 0))[0] for v in values] for remoteness in remotenesses]
    wide = max([12, *(len(f"{count:,}") for row in by_plies for count in row)]) + 2
    lines.append(f"{'plies':>5}" + "".join(f"{v:>{wide}}" for v in values))
    for remoteness, counts in zip(remotenesses, by_plies, strict=True):
        lines.append(f"{remoteness:>5}" + "".join(f"{count:>{wide},}" for count in counts))
    for extreme, label in ((stats.longest_win, "the longest forced win"), (stats.slowest_loss, "the slowest loss")):
        if extreme is not None:
            lines += ["", f"{label}: {plural(extreme.remoteness, 'ply', 'plies')}, at depth {extreme.depth}, e.g."]
            lines += indented_diagram(extreme.board, "  ", game)
    share = stats.decision / stats.in_play if stats.in_play else 0.0
    kept = ", ".join(f"{count}: {positions:,}" for count, positions in stats.keeping.items())
    lines += [
        "",
        f"decision positions (some move loses value): {stats.decision:,} of {stats.in_play:,} in play ({share:.1%});",
        f"  by how many moves keep the value: {kept}; every move keeps it at {stats.every_move_keeps:,}",
    ]
    return "\n".join(lines)


def census_lines(rows: Sequence[CensusRow]) -> list[str]:
    """The census as a terminal table: a game a line."""
    from ttt_db.build.plan import duration_text

    lines = [f"{'game':<8} {'empty board':<16} {'positions':>17} {'classes':>16} {'longest win':>11}  build CPU"]
    for row in rows:
        if not row.solved:
            lines.append(f"{row.game:<8} not built here: {'; '.join(row.lacks)}")
            continue
        longest = "-" if row.longest_win is None else plural(row.longest_win.remoteness, "ply", "plies")
        cpu = "?" if row.build_cpu_seconds is None else duration_text(row.build_cpu_seconds)
        empty = f"{row.value}, {plural(row.remoteness or 0, 'ply', 'plies')}"
        lines.append(
            f"{row.game:<8} {empty:<16} {row.positions or 0:>17,} {row.classes or 0:>16,} {longest:>11}  {cpu}"
        )
    return lines


def census_plan_lines(plan: CensusPlan, *, keep: bool) -> list[str]:
    """`census --plan`: each game not yet taken with its memory, disk and CPU, then the whole run."""
    from ttt_db.build.plan import duration_text, size_text

    lines = [f"{plan.taken} games recorded already; {len(plan.plans)} to take:"]
    for one in plan.plans:
        cpu = "?" if one.started_cpu_seconds is None else duration_text(one.started_cpu_seconds)
        lacking = f"  lacks: {'; '.join(one.lacks)}" if one.lacks else ""
        disk = size_text(one.work_disk + one.result_disk)
        lines.append(
            f"  {one.game.name:<8} memory {size_text(one.memory):>9}, disk {disk:>9}, build {cpu:>10} of CPU{lacking}"
        )
    if plan.plans:
        cores = plan.plans[0].machine.cores
        lines += [
            f"in all: {duration_text(plan.cpu_seconds)} of CPU (the process started once, each game built in "
            "it, then counted by a walk about as long), "
            f"about {duration_text(plan.cpu_seconds / cores)} on this machine's {cores} cores;",
            f"  memory {size_text(plan.peak_memory)} at most (one game at a time), disk "
            f"{size_text(plan.disk(keep=keep))} at most" + (" (every database kept)" if keep else ""),
        ]
    return lines
