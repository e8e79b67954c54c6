"""The one progress-bar style: on stderr, a bar on a terminal and a plain line every few seconds
elsewhere (`progress_bar`), silent with `--quiet`; a builder's stages (`stage_progress`)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, ClassVar, TypeAlias

if TYPE_CHECKING:
    from tqdm import tqdm


class SilentBar:
    """What a command sees of a progress bar that will not be shown (quiet, or stderr is not
    a terminal): the same counters, without importing tqdm (a noticeable part of a command's start)."""

    def __init__(self, total: int | None, desc: str) -> None:
        self.n = 0
        self.total = total
        self.desc = desc

    def update(self, count: int = 1) -> None:
        self.n += count

    def reset(self, total: int | None = None) -> None:
        self.n, self.total = 0, total

    def set_description_str(self, desc: str, refresh: bool = True) -> None:
        self.desc = desc

    def close(self) -> None:
        return None


class LineBar(SilentBar):
    """The progress bar where stderr is a file or a pipe: a plain line, at most every
    LINE_SECONDS, once the work has taken that long: the count, the total, the rate and the time
    left when the total is known."""

    LINE_SECONDS: ClassVar[float] = 10.0
    now = staticmethod(time.monotonic)

    def __init__(self, total: int | None, desc: str, unit: str) -> None:
        super().__init__(total, desc)
        self.unit = unit
        self._started = self._said = self.now()

    def reset(self, total: int | None = None) -> None:
        super().reset(total)
        self._started = self._said = self.now()

    def update(self, count: int = 1) -> None:
        super().update(count)
        now = self.now()
        if now - self._said >= self.LINE_SECONDS:
            self._said = now
            sys.stderr.write(self.line(now - self._started) + "\n")
            sys.stderr.flush()

    def line(self, elapsed: float) -> str:
        rate = self.n / elapsed if elapsed > 0 else 0.0
        done = f"{self.n:,}"
        if self.total:
            done += f"/{self.total:,} {self.unit}s ({100 * self.n / self.total:.1f}%)"
        else:
            done += f" {self.unit}s"
        line = f"{self.desc}: {done}, {clock(elapsed)} elapsed, {self._rate(rate)}"
        if self.total and rate > 0:
            line += f", about {clock((self.total - self.n) / rate)} left"
        return line

    def _rate(self, rate: float) -> str:
        """As tqdm writes it: units per second, or seconds per unit below one a second."""
        if rate >= 10:
            return f"{rate:,.0f} {self.unit}s/s"
        if rate >= 1:
            return f"{rate:.1f} {self.unit}s/s"
        return f"{1 / rate:,.1f} s/{self.unit}" if rate > 0 else f"no {self.unit} done yet"


ProgressBar: TypeAlias = "tqdm[Any] | SilentBar"
"""What `progress_bar` yields: tqdm's bar on a terminal, a counter (and lines) elsewhere."""


def clock(seconds: float) -> str:
    """A duration as h:mm:ss or m:ss, as tqdm writes it."""
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


@contextmanager
def progress_bar(total: int | None, desc: str, unit: str, *, quiet: bool) -> Iterator[ProgressBar]:
    """The one progress-bar style: on stderr, when the work takes longer than a second; on a
    terminal a bar erased when done, elsewhere a plain line every few seconds (`LineBar`)."""
    if quiet:
        yield SilentBar(total, desc)
        return
    if not sys.stderr.isatty():
        yield LineBar(total, desc, unit)
        return
    from tqdm import tqdm

    bar = tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, leave=False, delay=1.0, dynamic_ncols=True)
    try:
        yield bar
    finally:
        bar.close()


@contextmanager
def stage_progress(*, quiet: bool) -> Iterator[Callable[[str, int, int], None]]:
    """A `progress(stage, done, total)` callback for the builder: one count per stage, started
    again (its rate and time left with it) when the total changes or the count goes back; the stage's
    name may change as it goes (the level being solved)."""
    with progress_bar(None, "build", "step", quiet=quiet) as bar:

        def report(stage: str, done: int, total: int) -> None:
            if bar.total != total or done < bar.n:
                bar.reset(total=total)
            if bar.desc != stage:
                bar.set_description_str(stage, refresh=False)
            bar.update(done - bar.n)

        yield report
