"""The core of a build, level by level, out of core and resumable.

Each solved level is compressed into its chunks (`ttt_db.store.codes`) and saved in a work
folder beside the database (`.NAME.levels/`) with its counts, and the codes of every reachable slot
of the newest level are kept there too (the next level up reads them). A build that is killed
part-way finds the work folder and resumes above its last finished level; the folder is removed
once the database is written.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import msgpack
import numpy as np

from builder.core import SolvedLevel, solve_core
from ttt_db.errors import DatabaseError
from ttt_db.game.definition import Game
from ttt_db.game.rules import VALUES
from ttt_db.store.codes import CHUNK_SLOTS, REMOTENESS_LIMIT, ZSTD_LEVEL, chunk_checksum, code_of
from ttt_db.store.core_arrays import Codes
from ttt_db.store.location import DatabaseLocation

Progress = Callable[[str, int, int], None]
_FORMAT = 2  # of the work folder's files: a folder of another format is started afresh


@dataclass(frozen=True, slots=True)
class CoreChunk:
    chunk: int
    slots: int
    blob: bytes
    checksum: int


@dataclass(frozen=True, slots=True)
class CoreLevel:
    """A solved level as the database stores it: its chunks and its counts."""

    depth: int
    positions: int  # reachable slots
    canonical: int  # representatives (nonzero stored codes)
    values: dict[str, int]  # loss / draw / win for the side to move, over the positions
    values_canonical: dict[str, int]
    counts: dict[str, int]  # playing, decision and their canonical counts (`SolvedLevel`)
    chunks: list[CoreChunk]

    def to_plain(self) -> dict[str, object]:
        return {
            "depth": self.depth,
            "positions": self.positions,
            "canonical": self.canonical,
            "values": self.values,
            "values_canonical": self.values_canonical,
            "counts": self.counts,
            "chunks": [[c.chunk, c.slots, c.blob, c.checksum] for c in self.chunks],
        }

    @classmethod
    def from_plain(cls, plain: dict[str, object]) -> CoreLevel:
        chunks = [CoreChunk(*entry) for entry in plain["chunks"]]  # type: ignore[attr-defined]
        return cls(
            plain["depth"],  # type: ignore[arg-type]
            plain["positions"],  # type: ignore[arg-type]
            plain["canonical"],  # type: ignore[arg-type]
            plain["values"],  # type: ignore[arg-type]
            plain["values_canonical"],  # type: ignore[arg-type]
            plain["counts"],  # type: ignore[arg-type]
            chunks,
        )


def value_counts(codes: Codes) -> dict[str, int]:
    """How many nonzero codes are losses, draws and wins for the side to move (read a chunk at a
    time: `codes` may be a level's file, mapped)."""
    counts = np.zeros(256, np.int64)
    for start in range(0, len(codes), CHUNK_SLOTS):
        counts += np.bincount(codes[start : start + CHUNK_SLOTS], minlength=256)
    return {value: int(counts[code_of(value, 0) : code_of(value, REMOTENESS_LIMIT - 1) + 1].sum()) for value in VALUES}


def core_level(level: SolvedLevel, chunks: list[CoreChunk]) -> CoreLevel:
    """A solved level as the database stores it: its `chunks` and its counts."""
    return CoreLevel(
        level.depth,
        level.positions,
        level.canonical,
        value_counts(level.codes),
        value_counts(level.stored),
        level.counts.lists(),
        chunks,
    )


def compress_level(game: Game, level: SolvedLevel) -> CoreLevel:
    """The level's stored codes in compressed chunks, a chunk at a time, and its counts."""
    import zstandard

    compressor = zstandard.ZstdCompressor(level=ZSTD_LEVEL)
    chunks = []
    for number, start in enumerate(range(0, len(level.stored), CHUNK_SLOTS)):
        part = level.stored[start : start + CHUNK_SLOTS].tobytes()
        blob = compressor.compress(part)
        chunks.append(CoreChunk(number, len(part), blob, chunk_checksum(game.name, level.depth, number, blob)))
    return core_level(level, chunks)


def process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    return True


class WorkFolder:
    """Where a build keeps its finished levels until the database is written; the build that
    works in it writes its process id there (`claim`), so a second build of the same database
    is refused while the first runs, and takes over once it has stopped."""

    def __init__(self, path: Path, game: Game) -> None:
        self.path = path
        self.game = game

    def claim(self) -> list[CoreLevel]:
        """The levels an earlier build finished here (none: the folder is started afresh), the
        folder marked as this build's; DatabaseError when another running build works in it."""
        try:
            owner = int((self.path / "owner.pid").read_text())
        except (OSError, ValueError):
            owner = None
        if owner is not None and owner != os.getpid() and process_alive(owner):
            raise DatabaseError(
                f"another build of this database is running (process {owner}, working in {self.path}): "
                "wait for it to finish, or stop it"
            )
        done = self.finished()
        if not done:
            self.reset()
        _write_whole(self.path / "owner.pid", lambda stream: stream.write(str(os.getpid()).encode()))
        return done

    def _level_file(self, depth: int) -> Path:
        return self.path / f"level-{depth:02d}.msgpack"

    def codes_file(self, depth: int) -> Path:
        return self.path / f"codes-{depth:02d}.npy"

    def _stamp(self) -> dict[str, object]:
        return {"format": _FORMAT, "game": self.game.name, "chunk_slots": CHUNK_SLOTS}

    def finished(self) -> list[CoreLevel]:
        """The levels a killed build finished, deepest first, down to the first one missing; empty
        when the folder is of another game or format."""
        stamp = self.path / "build.json"
        try:
            if json.loads(stamp.read_text()) != self._stamp():
                return []
        except (OSError, ValueError):
            return []
        levels = []
        for depth in range(self.game.cells, -1, -1):
            try:
                levels.append(CoreLevel.from_plain(msgpack.unpackb(self._level_file(depth).read_bytes())))
            except (OSError, ValueError, KeyError, TypeError, msgpack.UnpackException):
                break
        while levels and not self.codes_file(levels[-1].depth).is_file():
            levels.pop()  # the next level up needs the reachable codes of the shallowest one
        return levels

    def start(self, levels: list[CoreLevel]) -> tuple[int, Codes] | None:
        if not levels:
            return None
        depth = levels[-1].depth
        codes: Codes = np.load(self.codes_file(depth))
        return depth, codes

    def reset(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)
        self.path.mkdir(parents=True)
        (self.path / "build.json").write_text(json.dumps(self._stamp()))

    def save(self, level: SolvedLevel, core: CoreLevel) -> None:
        """The level's chunks, then its codes, each written whole before it is named."""
        _write_whole(self.codes_file(level.depth), lambda f: np.save(f, level.codes))
        _write_whole(self._level_file(level.depth), lambda f: f.write(msgpack.packb(core.to_plain())))
        self.codes_file(level.depth + 1).unlink(missing_ok=True)

    def remove(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


def _write_whole(path: Path, write: Callable[[BinaryIO], object]) -> None:
    partial = path.with_name(path.name + ".part")
    with open(partial, "wb") as stream:
        write(stream)
    os.replace(partial, path)


def work_folder(location: DatabaseLocation, game: Game, work_dir: Path | None = None) -> WorkFolder:
    """`.NAME.levels/` beside a database file (in `work_dir` when given: shared storage every
    worker of a cluster reaches); for a server URL, a folder in the temporary directory named by
    the URL and game."""
    if work_dir is not None:
        name = (
            location.path.name if location.path is not None else hashlib.sha256(location.url.encode()).hexdigest()[:16]
        )
        return WorkFolder(work_dir / f".{name}.{game.name}.levels", game)
    if location.path is not None:
        return WorkFolder(location.path.with_name(f".{location.path.name}.levels"), game)
    digest = hashlib.sha256(f"{location.url} {game.name}".encode()).hexdigest()[:16]
    return WorkFolder(Path(tempfile.gettempdir()) / f"ttt-db-levels-{digest}", game)


@dataclass(frozen=True, slots=True)
class CoreBuild:
    levels: list[CoreLevel]  # by depth, 0 first
    resumed_at: int | None  # the shallowest level an earlier, killed build had finished
    codes: dict[int, Codes]  # every reachable slot's code of the levels solved in this run, where kept


def build_core(
    game: Game, folder: WorkFolder, progress: Progress, notice: Callable[[str], None], client: Any = None
) -> CoreBuild:
    """Solve every level not finished by an earlier build into `folder`, telling `notice` when
    an earlier build's levels are taken up; every level, by depth. With a Dask `client`, each
    level is solved by tasks on its workers (`builder.cluster`), into the same folder."""
    done = folder.claim()
    if done:
        notice(
            f"resuming the build of {game} stopped earlier: levels {game.cells} to {done[-1].depth} are "
            f"solved already (kept in {folder.path})"
        )
    start = folder.start(done)
    levels = {level.depth: level for level in done}
    codes: dict[int, Codes] = {}
    if client is None:
        solved_levels = solve_core(game, lambda depth, d, t: progress(f"level {depth}", d, t), start)
    else:
        from builder.cluster import solve_core_on_dask

        solved_levels = solve_core_on_dask(
            game,
            client,
            folder.path,
            lambda depth, d, t: progress(f"level {depth} (tasks)", d, t),
            None if start is None else (start[0], folder.codes_file(start[0])),
        )
    for solved in solved_levels:
        level = compress_level(game, solved)
        folder.save(solved, level)
        levels[solved.depth] = level
        if game.keeps_extras:  # small levels: the extras read them instead of expanding the stored ones
            codes[solved.depth] = np.array(solved.codes)
    return CoreBuild([levels[depth] for depth in range(game.cells + 1)], start[0] if start else None, codes)
