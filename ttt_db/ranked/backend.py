"""Where the level kernels run: interpreted, or compiled by numba.

`ttt_db.ranked.kernels` is one source in themed files. A game whose levels hold few slots runs it interpreted over
`bytearray`s and `array`s: no numpy, no numba, nothing to import or compile (tic-tac-toe's whole
core is a few thousand slots). Every larger game runs the same functions compiled by numba
(`cache=True`: compiled once per installation, then loaded), over numpy arrays, on every core
(the kernels release the GIL). Without numba, a large game runs interpreted too, slowly: the
choice is `choose_backend`'s, and `TTT_DB_KERNEL=interpreted|compiled` forces it.

numba was chosen over a C or Cython extension because it installs from wheels with the one
`pip install` of the README, on Linux, macOS and Windows, without a compiler on the user's
machine, and keeps the kernel readable Python that the interpreted backend runs unchanged.
"""

from __future__ import annotations

import os
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from types import ModuleType
from typing import Any, Final, TypeVar

from ttt_db.errors import MissingExtraError
from ttt_db.ranked.kernels import THEMES
from ttt_db.ranked.kernels.sets import Ints

T = TypeVar("T")
INTERPRETED_SLOTS: Final = 20_000
"""A game of at most this many slots in all runs the kernels interpreted (the compiler's start
costs more than the work)."""
ENVIRONMENT: Final = "TTT_DB_KERNEL"


@dataclass(frozen=True)
class Backend:
    """The kernels (`ttt_db.ranked.kernels`' functions, as `run.NAME`) and the arrays they take."""

    name: str  # "interpreted" or "compiled"
    run: Any  # `Kernels` over the kernel sources, or over their compiled copies
    workers: int  # threads a level's work is spread over

    @property
    def compiled(self) -> bool:
        return self.name == "compiled"

    def u8(self, size: int) -> Ints:
        """`size` zero bytes (uint8)."""
        if self.compiled:
            import numpy as np

            return np.zeros(size, np.uint8)
        return bytearray(size)

    def i64(self, size: int) -> Ints:
        """`size` zeros (int64)."""
        if self.compiled:
            import numpy as np

            return np.zeros(size, np.int64)
        return array("q", bytes(8 * size))

    def u32(self, size: int) -> Ints:
        """`size` zeros (uint32: a rank)."""
        if self.compiled:
            import numpy as np

            return np.zeros(size, np.uint32)
        return array("I", bytes(4 * size))

    def f64(self, size: int) -> Ints:
        """`size` zeros (float64: a probability)."""
        if self.compiled:
            import numpy as np

            return np.zeros(size, np.float64)
        return array("d", bytes(8 * size))

    def f64_paged(self, size: int) -> Ints:
        """`size` zeros (float64) mapped in ordinary pages as they are first written: numpy asks
        the system for huge pages for a large array, and where memory is first written all over,
        a virtual machine may take several times longer to hand out huge pages (the measures'
        buffers: `ttt_db.checks.core_measures`). The mapping is private: a shared one is the
        system's shared memory, whose pages cost more to hand out."""
        if not self.compiled or size == 0:
            return self.f64(size)
        import contextlib
        import mmap

        import numpy as np

        memory = mmap.mmap(-1, 8 * size, flags=mmap.MAP_PRIVATE)  # anonymous: no file
        with contextlib.suppress(AttributeError, OSError):  # where the system has no such advice
            memory.madvise(mmap.MADV_NOHUGEPAGE)  # ordinary pages even where every mapping gets huge ones
        return np.frombuffer(memory, np.float64)

    def f64_of(self, values: Sequence[float]) -> Ints:
        if self.compiled:
            import numpy as np

            return np.asarray(values, np.float64)
        return array("d", values)

    def i64_of(self, values: Sequence[int]) -> Ints:
        if self.compiled:
            import numpy as np

            return np.asarray(values, np.int64)
        return array("q", values)

    def u8_of(self, data: bytes | bytearray | memoryview) -> Ints:
        """A writable copy of `data` as bytes (uint8)."""
        if self.compiled:
            import numpy as np

            return np.frombuffer(bytes(data), np.uint8).copy()
        return bytearray(data)

    def spread(self, total: int, work: Callable[[int, int, int], T], grain: int = 1) -> list[T]:
        """work(worker, start, stop) over 0..total in ranges of at least `grain`, on every worker
        thread (compiled kernels run without the GIL); the results in range order. `worker` is not a
        thread's own (two ranges of one number may run at once): a range's scratch is its own."""
        workers = self.workers if self.compiled else 1
        if workers == 1 or total <= grain:
            return [work(0, 0, total)]
        from concurrent.futures import ThreadPoolExecutor

        step = max(grain, -(-total // (workers * 8)))
        ranges = [(start, min(start + step, total)) for start in range(0, total, step)]
        pool = ThreadPoolExecutor(workers)
        try:
            futures = [pool.submit(work, i % workers, start, stop) for i, (start, stop) in enumerate(ranges)]
            return [future.result() for future in futures]
        finally:  # a failed range or a signal (Ctrl-C, SIGTERM) waits for the ranges running, not the rest
            pool.shutdown(wait=True, cancel_futures=True)


_NOTICES: list[Callable[[], None]] = []


def before_first_compile(notice: Callable[[], None]) -> None:
    """Have `notice()` called once, just before numba compiles a kernel this installation has not
    compiled before (numba's cache keeps each one it compiled): a command line says then why its
    first run takes longer. The library itself never says anything."""
    _NOTICES[:] = [notice]


class Kernels:
    """Every kernel source's functions as attributes (`Backend.run`). Compiled, each is numba's
    dispatcher, which compiles it on its first call (only the kernels a command calls are
    compiled); the first one numba's cache does not hold sends the notice of
    `before_first_compile`."""

    def __init__(self, modules: Sequence[ModuleType], *, compiled: bool) -> None:
        self._modules = modules
        self._compiled = compiled

    def __getattr__(self, name: str) -> Any:
        for module in self._modules:
            if name in vars(module):
                kernel = vars(module)[name]
                break
        else:
            raise AttributeError(f"no kernel {name!r}")
        if self._compiled and _NOTICES and not _compiled_before(kernel):
            _notice_once()
        setattr(self, name, kernel)  # found directly from now on: no lookup here per call
        return kernel


def _notice_once() -> None:
    """The notice of `before_first_compile` sent, if no one sent it yet: threads that meet their
    first kernel at once (a level's ranges) may all get here, and one of them sends it."""
    try:
        notice = _NOTICES.pop()  # one step under the GIL: one thread takes it, the rest find none
    except IndexError:
        return
    notice()


def _compiled_before(kernel: Any) -> bool:
    """Whether a dispatcher has been compiled in this process or is in numba's cache for its
    current source (numba's own index: a stale or missing one means it compiles)."""
    if getattr(kernel, "signatures", None):
        return True
    try:
        return bool(kernel._cache._cache_file._load_index())
    except Exception:  # numba's cache reader changed, or no cache at all: nothing to say
        return True


def _sources() -> list[ModuleType]:
    import importlib

    return [importlib.import_module(f"ttt_db.ranked.kernels.{theme}") for theme in THEMES]


@cache
def interpreted() -> Backend:
    return Backend("interpreted", Kernels(_sources(), compiled=False), 1)


def compiled_on_one_thread() -> Backend:
    """The compiled kernels with the work of a level on one thread (a rate timed per core)."""
    return Backend("compiled", compiled().run, 1)


@cache
def compiled() -> Backend:
    """The kernels compiled by numba (MissingExtraError without it): a copy of each kernel source
    (`COMPILED_PACKAGE`), its imports of the sources before it taken from their copies and its
    functions replaced by their compiled forms, so that they call each other compiled while the
    sources stay plain Python."""
    import sys
    from types import ModuleType

    try:
        import numba
    except ImportError:
        raise MissingExtraError("numba", "numba") from None
    _load_array_functions_without_blas()
    package = ModuleType(COMPILED_PACKAGE)
    package.__path__ = []
    sys.modules[COMPILED_PACKAGE] = package
    jit = numba.njit(cache=True, nogil=True, error_model="numpy")
    unsigned = numba.njit(inline="always")(lambda x: numba.uint64(x))  # indices: no wraparound test
    copies = [_compiled_copy(source, jit, unsigned) for source in _sources()]
    return Backend("compiled", Kernels(copies, compiled=True), os.cpu_count() or 1)


COMPILED_PACKAGE: Final = "ttt_db.ranked._compiled_kernels"
"""Where `compiled` keeps its copies of the kernel sources (`sys.modules`), one module per source."""


def _compiled_copy(source: ModuleType, jit: Callable[[Any], Any], unsigned: Any) -> ModuleType:
    """A copy of a kernel source whose functions are `jit`'s compiled forms, its imports of other
    kernel sources read from their copies (which must be made before it), and the index helper `u`,
    where the source defines it, `unsigned` (the sources after it import that one); numba keys its
    cache by the source file, which the copy keeps as its own."""
    import inspect
    import operator
    import sys
    from pathlib import Path
    from types import ModuleType

    name = f"{COMPILED_PACKAGE}.{source.__name__.rsplit('.', 1)[-1]}"
    path = Path(inspect.getfile(source))
    text = path.read_text(encoding="utf-8").replace("from ttt_db.ranked.kernels.", f"from {COMPILED_PACKAGE}.")
    copy = ModuleType(name)
    copy.__file__ = str(path)
    sys.modules[name] = copy
    exec(compile(text, str(path), "exec"), vars(copy))
    if vars(copy).get("u") is operator.index:
        vars(copy)["u"] = unsigned
    for attribute, value in list(vars(copy).items()):
        if inspect.isfunction(value) and value.__module__ == name:
            setattr(copy, attribute, jit(value))
    return copy


BLAS_MODULE: Final = "scipy.linalg.cython_blas"


def _load_array_functions_without_blas() -> None:
    """Load numba's array functions (`numba.np.arraymath`, which numba loads with the first
    kernel) without SciPy's BLAS. As it loads it imports SciPy, where SciPy is installed, only to
    learn whether an inner product may call BLAS (it falls back to a loop that gives the same
    result); no kernel computes one, and that import is a large share of a short command's
    start. SciPy is refused for that one import, and importable again after it."""
    import sys

    if "numba.np.arraymath" in sys.modules or BLAS_MODULE in sys.modules:
        return
    sys.modules[BLAS_MODULE] = None  # type: ignore[assignment]  # the import system's "not importable"
    try:
        import numba.np.arraymath  # noqa: F401
    finally:
        if sys.modules.get(BLAS_MODULE, 0) is None:
            del sys.modules[BLAS_MODULE]


def numba_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("numba") is not None


def choose_backend(slots: int) -> Backend:
    """The backend for a game of `slots` slots (`runs_interpreted`)."""
    return interpreted() if runs_interpreted(slots) else compiled()


def runs_interpreted(slots: int) -> bool:
    """Whether a game of `slots` slots runs the kernels interpreted: when it is small (or numba is
    missing, or TTT_DB_KERNEL says so); compiled otherwise."""
    forced = os.environ.get(ENVIRONMENT, "")
    if forced in ("interpreted", "compiled"):
        return forced == "interpreted"
    return slots <= INTERPRETED_SLOTS or not numba_available()


def as_list(values: Any, count: int | None = None) -> list[int]:
    """The first `count` (all) values of an array as Python ints."""
    part = values if count is None else values[:count]
    return part.tolist() if hasattr(part, "tolist") else list(part)
