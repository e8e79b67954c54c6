"""A batch of boards' slots with their children's and grandchildren's, in arrays, on every core:
the kernel `family_slots` behind a typed face (a compiled game's bulk lookups read their codes:
`ttt_db.store.lookups`), and which of their moves are best and fastest (`best_and_fastest`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ttt_db.ranked.kernels.moves import chosen_move
from ttt_db.ranked.tables import RankedTables

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray


def family_slots(
    tables: RankedTables, count: int, occupied: NDArray[np.int64], o_cells: NDArray[np.int64], *, spread: bool = True
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.uint8], NDArray[np.int64]]:
    """Each board's slot, its children's and grandchildren's by cell (`family_slots`): [board],
    [board, move] and [board, move, reply], -1 where there is none; and how each move ends the game
    (1 a win, 2 a full board, 0 neither). On every core where `spread`, else on the calling thread."""
    import numpy as np

    n = tables.cells
    own, child, ended = np.empty(count, np.int64), np.empty(count * n, np.int64), np.empty(count * n, np.uint8)
    grand = np.empty(count * n * n, np.int64)
    rank_bytes = tables.rank_bytes
    occupied, o_cells = np.ascontiguousarray(occupied), np.ascontiguousarray(o_cells)

    def work(_: int, start: int, stop: int) -> None:
        tables.run.family_slots(
            tables.arrays,
            stop - start,
            occupied[start:stop],
            o_cells[start:stop],
            own[start:stop],
            child[start * n : stop * n],
            ended[start * n : stop * n],
            grand[start * n * n : stop * n * n],
            rank_bytes,
            np.empty(2 * tables.symmetries, np.int64),  # a range's own scratch: ranges run at once
        )

    if spread:
        tables.backend.spread(count, work, grain=1024)  # on every core
    else:
        work(0, 0, count)
    return own, child.reshape(count, n), ended.reshape(count, n), grand.reshape(count, n, n)


def best_and_fastest(worths: NDArray[np.uint8], top: NDArray[np.uint8]) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """Of boards' moves by cell, given as their worths (`ttt_db.ranked.codes`; 0 where there is no
    move) beside each board's best worth, those that keep the best value class and those of them
    that also win fastest or lose slowest (every drawing move when the best is a draw): the kernels'
    one rule (`chosen_move`), in arrays."""
    rule: Any = chosen_move  # plain arithmetic on its arguments: it runs on arrays as it is
    column, moves = top[:, None], worths != 0
    return moves & rule(1, worths, column), moves & rule(2, worths, column)
