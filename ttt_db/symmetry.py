"""The 8 symmetries of the square as index permutations, each with its inverse.

A transform `t` maps a board to its image with `image[i] == board[TRANSFORMS[t][i]]`.
A move `m` on the board lands on `INVERSES[t][m]` in the image, and a move `c` on the image
is `TRANSFORMS[t][c]` on the board: that is how a move found on a canonical board is mapped
back to the user's board.
"""

from __future__ import annotations

from typing import Final


def _compose(outer: tuple[int, ...], inner: tuple[int, ...]) -> tuple[int, ...]:
    """The permutation that applies `inner` to the board, then `outer` to the result."""
    return tuple(inner[outer[i]] for i in range(9))


def _invert(perm: tuple[int, ...]) -> tuple[int, ...]:
    inverse = [0] * 9
    for image_index, source_index in enumerate(perm):
        inverse[source_index] = image_index
    return tuple(inverse)


IDENTITY: Final = tuple(range(9))
_ROTATE: Final = (6, 3, 0, 7, 4, 1, 8, 5, 2)  # a quarter turn clockwise
_MIRROR: Final = (2, 1, 0, 5, 4, 3, 8, 7, 6)  # left-right

_rotations = [IDENTITY]
for _ in range(3):
    _rotations.append(_compose(_ROTATE, _rotations[-1]))

TRANSFORMS: Final[tuple[tuple[int, ...], ...]] = tuple(
    _rotations + [_compose(_MIRROR, rotation) for rotation in _rotations]
)
INVERSES: Final[tuple[tuple[int, ...], ...]] = tuple(_invert(t) for t in TRANSFORMS)


def transform_board(cells: str, transform: int) -> str:
    """The image of `cells` under transform number `transform` (0-7)."""
    perm = TRANSFORMS[transform]
    return "".join([cells[i] for i in perm])


def transform_move(move: int, transform: int) -> int:
    """Where `move` on a board lands on its image under `transform`."""
    return INVERSES[transform][move]


def untransform_move(move: int, transform: int) -> int:
    """Where `move` on the image under `transform` lies on the original board."""
    return TRANSFORMS[transform][move]


def symmetric_images(cells: str) -> list[str]:
    """All 8 images, in transform order (duplicates kept for symmetric boards)."""
    return ["".join([cells[i] for i in perm]) for perm in TRANSFORMS]


def canonical_board(cells: str) -> str:
    """The smallest of the 8 images in plain character order (`.` < `o` < `x`)."""
    return min(symmetric_images(cells))


def canonical_transform(cells: str) -> tuple[str, int]:
    """The canonical board and the first transform that produces it from `cells`."""
    images = symmetric_images(cells)
    canonical = min(images)
    return canonical, images.index(canonical)
