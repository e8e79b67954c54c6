"""The symmetries of a game's board as index permutations, each with its inverse: 8 for a
square board, 4 for a rectangle (`ttt_db.game.definition.Game.transforms`).

A transform `t` maps a board to its image with `image[i] == board[transforms[t][i]]`.
A move `m` on the board lands on `inverses[t][m]` in the image, and a move `c` on the image
is `transforms[t][c]` on the board: that is how a move found on a canonical board is mapped
back to the user's board.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache
from operator import itemgetter

from ttt_db.game.definition import Game


def transform_board(cells: str, transform: int, game: Game) -> str:
    """The image of `cells` under transform number `transform`."""
    perm = game.transforms[transform]
    return "".join([cells[i] for i in perm])


def transform_move(move: int, transform: int, game: Game) -> int:
    """Where `move` on a board lands on its image under `transform`."""
    return game.inverses[transform][move]


def untransform_move(move: int, transform: int, game: Game) -> int:
    """Where `move` on the image under `transform` lies on the original board."""
    return game.transforms[transform][move]


def untransform_moves(moves: Iterable[int], transform: int, game: Game) -> tuple[int, ...]:
    """`moves` on the image under `transform`, carried back to the original board, sorted."""
    perm = game.transforms[transform]
    return tuple(sorted(perm[move] for move in moves))


def symmetric_images(cells: str, game: Game) -> list[str]:
    """Every image, in transform order (duplicates kept for symmetric boards)."""
    return ["".join(read(cells)) for read in _image_readers(game)]


@cache
def _image_readers(game: Game) -> list[Callable[[str], Sequence[str]]]:
    """For each transform, what reads a board's cells in its image's order, in one call."""
    return [itemgetter(*perm) for perm in game.transforms]


def canonical_board(cells: str, game: Game) -> str:
    """The smallest image in plain character order (`.` < `o` < `x`)."""
    return min(symmetric_images(cells, game))


def canonical_transform(cells: str, game: Game) -> tuple[str, int]:
    """The canonical board and the first transform that produces it from `cells`."""
    images = symmetric_images(cells, game)
    canonical = min(images)
    return canonical, images.index(canonical)


def canonical_and_orbit(cells: str, game: Game) -> tuple[str, int]:
    """`canonical_board` of `cells` and its orbit's size (how many distinct boards the symmetries
    make of it, itself included), its images made once."""
    images = symmetric_images(cells, game)
    return min(images), len(set(images))


def canonical_and_orbit_many(boards: Sequence[str], game: Game) -> tuple[list[str], list[int]]:
    """`canonical_and_orbit` of many boards at once, in arrays: each image read as a base-3
    number, most significant cell first (`.` 0, `o` 1, `x` 2: the order of the text), so that the
    smallest number is the smallest image; the orbit is the symmetries over those that leave the
    board as it is (the transforms are a group, the first the identity)."""
    import numpy as np

    n, count = game.cells, len(boards)
    if count == 0:
        return [], []
    chars = np.frombuffer("".join(boards).encode("ascii"), np.uint8).reshape(count, n)
    digit = np.zeros(256, np.int64)
    digit[ord("o")], digit[ord("x")] = 1, 2
    digits = digit[chars]
    powers = 3 ** np.arange(n - 1, -1, -1, dtype=np.int64)
    transforms = np.asarray(game.transforms, np.intp)
    keys = np.stack([digits[:, transform] @ powers for transform in transforms])
    smallest = keys.argmin(axis=0)
    canonical = chars[np.arange(count)[:, None], transforms[smallest]].tobytes().decode("ascii")
    orbits = len(transforms) // (keys == keys[0]).sum(axis=0)
    return [canonical[i * n : (i + 1) * n] for i in range(count)], orbits.tolist()


def images_with_moves(moves_of: Mapping[str, tuple[int, ...]], game: Game) -> dict[str, tuple[int, ...]]:
    """Every image of each board with the board's moves carried onto it (`transform_move`), sorted:
    on each image what `untransform_moves` of its canonical board's moves gives there."""
    readers = list(enumerate(_image_readers(game)))
    carried: list[dict[tuple[int, ...], tuple[int, ...]]] = [{} for _ in readers]  # boards share moves
    found: dict[str, tuple[int, ...]] = {}
    for board, moves in moves_of.items():
        for transform, read in readers:
            image = "".join(read(board))
            if image not in found:
                onto = carried[transform].get(moves)
                if onto is None:
                    inverse = game.inverses[transform]
                    onto = carried[transform][moves] = tuple(sorted(inverse[move] for move in moves))
                found[image] = onto
    return found
