"""One database handle shared by threads (as the web server will): answers equal single-threaded
ones, and the caches hold normalised boards only."""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor

import pytest

from ttt_db.store import published
from ttt_db.store.database import open_database


def _spellings(boards: list[str], rng: random.Random, count: int) -> list[str]:
    """Boards as users write them: upper case, dashes, rows with slashes, x-first swaps."""
    styles = [str, str.upper, lambda b: b.replace(".", "-"), lambda b: "/".join((b[:3], b[3:6], b[6:]))]
    return [rng.choice(styles)(rng.choice(boards)) for _ in range(count)]


def test_eight_threads_share_one_handle(db_path, positions) -> None:
    rng = random.Random(7)
    stored = rng.sample(sorted(positions), 800)  # cold rows for the threads to race over
    boards = stored + [b.translate(str.maketrans("ox", "xo")) for b in stored if b.count("o") > b.count("x")]
    work = [_spellings(boards, rng, 10_000) for _ in range(8)]
    with open_database(db_path) as single:
        single.load_all()  # the reference answers come from a warm handle
        expected = [[single.lookup(text) for text in texts] for texts in work]
    with open_database(db_path) as shared, ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(lambda texts: [shared.lookup(text) for text in texts], work))
        assert answers == expected
        cached = set(shared._answers)
    # keys are (normalised cells, first player): no user spelling is kept
    assert all(len(cells) == 9 and set(cells) <= set("ox.") for cells, _ in cached)


def test_nothing_returns_an_internal_mutable_table(db) -> None:
    table = db.best_moves_table()
    assert not hasattr(table, "__setitem__")
    with pytest.raises(TypeError):
        table["........."] = (0,)  # type: ignore[index]
    meta = db.meta()
    meta["figures"]["positions"] = 0
    assert db.meta()["figures"]["positions"] == published.LIST_SIZES["all"]
    db.node_list("all").clear()
    assert len(db.node_list("all")) == published.LIST_SIZES["all"]


@pytest.mark.parametrize("bad", [None, b"ox..x....", ["o", "x"], 5])
def test_a_lookup_of_something_that_is_not_a_board_is_a_type_error(db, bad) -> None:
    with pytest.raises(TypeError, match="a board is a string or a Board"):
        db.lookup(bad)
