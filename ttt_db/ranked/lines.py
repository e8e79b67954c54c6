"""Rows of a level as lines of text, in bulk: the kernel `write_lines` behind a typed face (`lines_written`). What
the lines say (JSON lines, CSV) is the export's (`ttt_db.outputs.export`): here a template of
parts, a pool of text pieces and each row's values become one buffer of lines."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ttt_db.ranked.backend import Backend

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray


@dataclass(frozen=True)
class LineTemplate:
    """A line's parts in order: each one's kind (0 a piece of the pool at its base plus the row's
    value; 1 a mask's cells as a list, from the pool's list pieces at `lists`; 2 a board from its
    o's and x's cells), the column of the row's values it reads (-1 none) and its base."""

    kinds: NDArray[np.int64]
    columns: NDArray[np.int64]
    bases: NDArray[np.int64]
    lists: int


@dataclass(frozen=True)
class TextPool:
    """Pieces of text as one buffer of bytes, each at its start with its length."""

    data: NDArray[np.uint8]
    start: NDArray[np.int64]
    length: NDArray[np.int64]


def lines_written(
    backend: Backend,
    rows: int,
    cells: int,
    template: LineTemplate,
    pool: TextPool,
    values: NDArray[np.int64],
    longest: int,
    *,
    quoted: bool,
) -> memoryview:
    """The rows' lines (`values[column * rows + row]` each part's value), each at most `longest`
    bytes, with CSV's quotes around a list that has a comma when `quoted`."""
    import numpy as np

    arguments: tuple[Any, ...] = (
        template.kinds,
        template.columns,
        template.bases,
        values.reshape(-1),
        pool.data,
        pool.start,
        pool.length,
    )
    if not backend.compiled:  # plain Python reads lists and bytes faster than numpy arrays
        arguments = tuple(argument.tolist() for argument in arguments)
        out: Any = bytearray(longest * rows)
    else:
        out = np.empty(longest * rows, np.uint8)
    at = backend.run.write_lines(rows, cells, *arguments, template.lists, quoted, out)
    return memoryview(out)[:at]
