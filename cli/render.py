"""Human-readable text for positions and build summaries (the CLI's formatting, no I/O)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ttt_db.board import describe_moves, diagram

if TYPE_CHECKING:
    from ttt_db.position import Position


def _plies(count: int) -> str:
    return f"{count} ply" if count == 1 else f"{count} plies"


def outcome_line(position: Position) -> str:
    """`x won`, `draw`, or `o to move: win in 3 plies` style summary."""
    if position.status == "draw":
        return "game over: draw (no move)"
    if position.status != "playing":
        return f"game over: {position.status} won (no move)"
    mover = position.to_move
    if position.value == "draw":
        return f"{mover} to move: draw, the board fills in {_plies(position.remoteness)}"
    verb = "wins" if position.value == "win" else "loses"
    return f"{mover} to move: {mover} {verb} in {_plies(position.remoteness)} with best play"


def first_mover_note(position: Position) -> str:
    if position.first == "o":
        return "o moved first"
    return "x moved first (it has one more mark than o)"


def _header(position: Position) -> list[str]:
    """The board drawn, then who is to move and what it is worth, then who moved first."""
    return [diagram(position.board), "", outcome_line(position), first_mover_note(position)]


def best_moves_text(position: Position, *, shortest: bool) -> str:
    lines = _header(position)
    if position.status == "playing":
        moves = position.best_moves_shortest if shortest else position.best_moves
        label = "best moves (shortest)" if shortest else "best moves"
        lines.append(f"{label}: {describe_moves(moves)}")
    return "\n".join(lines)


def best_moves_document(position: Position) -> dict[str, Any]:
    document = position.to_record()
    document["moves"] = [analysis.to_dict() for analysis in position.moves]
    return document


def show_text(position: Position) -> str:
    lines = _header(position)
    if position.status != "playing":
        return "\n".join(lines)
    lines += ["", "move  name  value  remoteness  best"]
    for analysis in position.moves_best_first():
        best = "*" if analysis.move in position.best_moves else ""
        shortest = "shortest" if analysis.move in position.best_moves_shortest and best else ""
        lines.append(
            f"{analysis.move:>4}  {analysis.name:<4}  {analysis.value:<5}  {analysis.remoteness:>10}  "
            f"{best} {shortest}".rstrip()
        )
    lines.append("(value for the player making the move; remoteness: plies left after it)")
    return "\n".join(lines)


def figures_text(figures: dict[str, Any]) -> list[str]:
    values = figures.get("values", {})
    canonical_values = figures.get("values_canonical", {})
    return [
        f"tree nodes:          {figures['tree_nodes']:,}",
        f"positions:           {figures['positions']:,} ({figures['canonical_positions']:,} up to symmetry)",
        f"still in play:       {figures['playing']:,} ({figures['playing_canonical']:,} up to symmetry)",
        f"decision positions:  {figures['decision']:,} ({figures['decision_canonical']:,} up to symmetry)",
        "value for the mover: "
        f"{values.get('win', 0):,} win / {values.get('loss', 0):,} loss / {values.get('draw', 0):,} draw "
        f"({canonical_values.get('win', 0)} / {canonical_values.get('loss', 0)} / "
        f"{canonical_values.get('draw', 0)} up to symmetry)",
    ]
