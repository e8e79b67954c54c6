"""Boards drawn as SVG, and the few HTML pieces the notebook displays share (`_repr_svg_` and
`_repr_html_` of Board, Position, the check report and the search report).

The colours are the page's (cli/web/static/style.css, held equal by tests/test_notebook.py): a
side's colour wherever that side is named, green, amber and red for a win, a draw and a loss of
the player a value is for.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from html import escape
from typing import Final

from ttt_db.game.definition import Game

SIDE_COLOURS: Final = {"o": "#2454c5", "x": "#a0349a"}
VALUE_COLOURS: Final = {"win": ("#176b3a", "#d9f2e3"), "draw": ("#735b00", "#fbf0c4"), "loss": ("#b3261e", "#f9dedc")}
"""A value's (ink, background)."""
LINE: Final = "#c7c7cf"
MUTED: Final = "#5d5e66"
CELL: Final = 56
"""A cell's side in SVG user units."""


def board_svg(
    cells: str,
    game: Game,
    *,
    values: Mapping[int, str] | None = None,
    notes: Mapping[int, str] | None = None,
    rings: Mapping[int, str] | None = None,
    winning: Iterable[int] = (),
    title: str = "",
) -> str:
    """`cells` drawn as an SVG board with its column letters and row numbers: an empty cell filled
    by its value (`values`: cell -> win/draw/loss) and labelled (`notes`), a ring round a cell
    (`rings`: cell -> a value's name, or `o`/`x`), the winning line's cells outlined."""
    values, notes, rings = values or {}, notes or {}, rings or {}
    line = set(winning)
    margin = 18
    width, height = margin + game.columns * CELL + 2, margin + game.rows * CELL + 2
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width * 1.5:g}" '
        f'height="{height * 1.5:g}" role="img" aria-label="{escape(title or "board " + cells)}" '
        'font-family="system-ui, sans-serif">'
    ]
    if title:
        parts.append(f"<title>{escape(title)}</title>")
    for column in range(game.columns):
        x = margin + column * CELL + CELL / 2
        parts.append(
            f'<text x="{x:g}" y="12" text-anchor="middle" font-size="11" fill="{MUTED}">{chr(97 + column)}</text>'
        )
    for row in range(game.rows):
        y = margin + row * CELL + CELL / 2 + 4
        name = game.move_name(row * game.columns)[1:]  # the first column's cell names: the row numbers
        parts.append(f'<text x="7" y="{y:g}" text-anchor="middle" font-size="11" fill="{MUTED}">{name}</text>')
    for cell, mark in enumerate(cells):
        row, column = divmod(cell, game.columns)
        x, y = margin + column * CELL + 2, margin + row * CELL + 2
        size = CELL - 4
        value = values.get(cell)
        fill = VALUE_COLOURS[value][1] if value in VALUE_COLOURS else "#ffffff"
        stroke, stroke_width = (SIDE_COLOURS["o"], 4) if cell in line else (LINE, 1.5)
        parts.append(
            f'<rect x="{x}" y="{y}" width="{size}" height="{size}" rx="6" fill="{fill}" '
            f'stroke="{stroke}" stroke-width="{stroke_width}"/>'
        )
        ring = rings.get(cell)
        if ring is not None:
            colour = SIDE_COLOURS.get(ring) or VALUE_COLOURS.get(ring, (MUTED, ""))[0]
            parts.append(
                f'<rect x="{x + 4}" y="{y + 4}" width="{size - 8}" height="{size - 8}" rx="4" fill="none" '
                f'stroke="{colour}" stroke-width="3"/>'
            )
        centre_x, centre_y = x + size / 2, y + size / 2
        if mark in SIDE_COLOURS:
            parts.append(
                f'<text x="{centre_x:g}" y="{centre_y + 11:g}" text-anchor="middle" font-size="32" '
                f'font-weight="600" fill="{SIDE_COLOURS[mark]}">{mark}</text>'
            )
        elif cell in notes:
            ink = VALUE_COLOURS[value][0] if value in VALUE_COLOURS else MUTED
            parts.append(
                f'<text x="{centre_x:g}" y="{centre_y + 4:g}" text-anchor="middle" font-size="10" '
                f'fill="{ink}">{escape(notes[cell])}</text>'
            )
    parts.append("</svg>")
    return "".join(parts)


def value_text(value: str, player: str) -> str:
    """`a win for o`, `a draw`, `a loss for x`, coloured as the page colours a value."""
    return in_value_colour(value, "a draw" if value == "draw" else f"a {value} for {player}")


def in_value_colour(value: str, words: str) -> str:
    """`words` (escaped) in the colour the page gives `value`."""
    return f'<span style="color:{VALUE_COLOURS[value][0]};font-weight:600">{escape(words)}</span>'


def figure(svg: str, caption: str) -> str:
    """A board and its caption, side by side with others in a row of figures."""
    return (
        '<figure style="display:inline-block;margin:0 1em 0.5em 0;vertical-align:top">'
        f'{svg}<figcaption style="max-width:18em;font-size:0.9em">{caption}</figcaption></figure>'
    )


def table(rows: Iterable[tuple[str, str]]) -> str:
    """A two-column table of (name, value) rows; the values are HTML."""
    body = "".join(
        f'<tr><th style="text-align:left;padding-right:1em">{escape(name)}</th><td>{value}</td></tr>'
        for name, value in rows
    )
    return f"<table>{body}</table>"
