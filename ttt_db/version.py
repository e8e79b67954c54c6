"""The package's version: a leaf every layer may read (the package root imports every layer)."""

from typing import Final

__version__: Final = "0.1.0"
