"""The core of a build, level by level, out of core and resumable.

Each level is solved from the one below it (`ttt_db.ranked.step.solve_level`, over canonical sets
only), laid out in the stored numbering and compressed chunk by chunk (`ttt_db.ranked.layout`,
`ttt_db.store.chunks`: a chunk of zeros is not compressed again), and saved in a work folder beside
the database (`.NAME.levels/`): its chunks (`level-DD.chunks`) and then its counts
(`level-DD.json`), each written whole before it is named. A build that is killed part-way finds the
work folder and resumes above its last finished level, whose codes it takes back from its chunks;
the folder is removed once the database is written, which reads the chunks from it level by level.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import struct
import tempfile
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, BinaryIO, Final

from ttt_db.errors import DatabaseError, WorkFolderDamagedError
from ttt_db.game.definition import Game
from ttt_db.ranked.backend import compiled
from ttt_db.ranked.layout import chunks_of_level, level_from_chunks
from ttt_db.ranked.slots import level_slots, level_work
from ttt_db.ranked.step import Level, LevelCounts, solve_level
from ttt_db.ranked.tables import RankedTables
from ttt_db.store.chunks import CHUNK_SLOTS, chunk_checksum, compressor, core_codes, zero_chunk
from ttt_db.store.files import write_bytes_whole, write_whole
from ttt_db.store.location import DatabaseLocation

Progress = Callable[[str, int, int], None]
_FORMAT: Final = 4  # of the work folder's files: a folder of another format is started afresh
_RECORD: Final = struct.Struct("<IIi")  # a chunk's slots, its blob's length, its checksum


@dataclass(frozen=True, slots=True)
class CoreChunk:
    chunk: int
    slots: int
    blob: bytes
    checksum: int


@dataclass(frozen=True)
class CoreLevel:
    """A solved level as the database stores it: its counts, and its chunks in the work folder."""

    depth: int
    counts: LevelCounts
    chunk_count: int
    path: Path

    @property
    def positions(self) -> int:
        return self.counts.positions

    @property
    def canonical(self) -> int:
        return self.counts.canonical

    def chunks(self, game: Game) -> Iterator[CoreChunk]:
        """The level's chunks in order, read from its file, each held to its length in the level
        and its checksum; WorkFolderDamagedError at the first that is not what the build saved."""
        total = level_slots(game.cells, self.depth)
        with open(self.path, "rb") as stream:
            for number in range(self.chunk_count):
                record = stream.read(_RECORD.size)
                slots, length, checksum = _RECORD.unpack(record) if len(record) == _RECORD.size else (-1, 0, 0)
                blob = stream.read(length)
                if slots != min(CHUNK_SLOTS, total - number * CHUNK_SLOTS) or len(blob) != length:
                    raise WorkFolderDamagedError(self.depth, self.path, f"it ends or breaks off inside chunk {number}")
                if checksum != chunk_checksum(game.name, self.depth, number, blob):
                    raise WorkFolderDamagedError(self.depth, self.path, f"chunk {number} fails its checksum")
                yield CoreChunk(number, slots, blob, checksum)
            if stream.read(1):
                raise WorkFolderDamagedError(self.depth, self.path, f"it goes on past its {self.chunk_count} chunks")


def counts_binding(game: Game, depth: int, counts: LevelCounts, checksums: list[int]) -> str:
    """What binds a saved level's counts to its chunks: a hash of both, saved with the counts, so
    that counts changed apart from the codes they describe are found when the level is taken up."""
    text = json.dumps([game.name, depth, asdict(counts), checksums], sort_keys=True)
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def process_started(pid: int) -> str | None:
    """When process `pid` started, as the system counts it (Linux: /proc/PID/stat's start time in
    clock ticks since boot); None where the system does not say. A process id reused by another
    process has another start time."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return fields[19] if len(fields) > 19 else None


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

    def claim(self, *, fresh: bool = False) -> tuple[list[CoreLevel], WorkFolderDamagedError | None]:
        """The levels an earlier build finished here, each checked whole (none: the folder is
        started afresh), and the damage that ended them, if any (that level and those above it are
        solved again); the folder marked as this build's. DatabaseError when another running build
        works in it. `fresh`: whatever an earlier build left is discarded."""
        owner = self._running_owner()
        if owner is not None:
            raise DatabaseError(
                f"another build of this database is running (process {owner}, working in {self.path}): "
                "wait for it to finish, or stop it"
            )
        done, damage = ([], None) if fresh else self.finished()
        if not done:
            self.reset()
        me = {"pid": os.getpid(), "started": process_started(os.getpid()), "folder": str(self.path.resolve())}
        write_bytes_whole(self.path / "owner.pid", json.dumps(me).encode())
        return done, damage

    def _running_owner(self) -> int | None:
        """The process id of another build working in this folder now: its owner file names a live
        process that started when the build that wrote it did (a process id reused by an unrelated
        process, or a file of an older format, is no build)."""
        try:
            owner = json.loads((self.path / "owner.pid").read_text())
            pid, started, folder = int(owner["pid"]), owner["started"], owner["folder"]
        except (OSError, ValueError, KeyError, TypeError):
            return None
        if pid == os.getpid() or folder != str(self.path.resolve()) or not process_alive(pid):
            return None
        if started is not None and process_started(pid) not in (None, started):
            return None  # the id now names another process
        return pid

    def chunks_file(self, depth: int) -> Path:
        return self.path / f"level-{depth:02d}.chunks"

    def _counts_file(self, depth: int) -> Path:
        return self.path / f"level-{depth:02d}.json"

    def _stamp(self) -> dict[str, object]:
        return {"format": _FORMAT, "game": self.game.name, "chunk_slots": CHUNK_SLOTS}

    def finished(self) -> tuple[list[CoreLevel], WorkFolderDamagedError | None]:
        """The levels a killed build finished, deepest first, down to the first one missing or
        damaged (every chunk read and held to its checksum), and that damage; nothing when the
        folder is of another game or format."""
        stamp = self.path / "build.json"
        try:
            if json.loads(stamp.read_text()) != self._stamp():
                return [], None
        except (OSError, ValueError):
            return [], None
        levels: list[CoreLevel] = []
        for depth in range(self.game.cells, -1, -1):
            try:
                saved = json.loads(self._counts_file(depth).read_text())
                level = CoreLevel(depth, LevelCounts(**saved["counts"]), int(saved["chunks"]), self.chunks_file(depth))
                binding = str(saved["binding"])
            except (OSError, ValueError, KeyError, TypeError):
                break  # not finished: its counts are written last
            try:
                checksums = [chunk.checksum for chunk in level.chunks(self.game)]
            except OSError as error:
                return levels, WorkFolderDamagedError(
                    level.depth, level.path, f"it cannot be read ({error.strerror or error})"
                )
            except WorkFolderDamagedError as damage:
                return levels, damage
            if binding != counts_binding(self.game, depth, level.counts, checksums):
                counts = self._counts_file(depth)
                return levels, WorkFolderDamagedError(depth, counts, "its counts are not those saved with its chunks")
            levels.append(level)
        return levels, None

    def reset(self) -> None:
        """An empty work folder; DatabaseError when it cannot be made (a folder that takes no files)."""
        shutil.rmtree(self.path, ignore_errors=True)
        try:
            self.path.mkdir(parents=True)
            (self.path / "build.json").write_text(json.dumps(self._stamp()))
        except OSError as error:
            reason = (error.strerror or str(error)).lower()
            raise DatabaseError(f"cannot create the build's work folder {self.path}: {reason}") from None

    def save(self, tables: RankedTables, level: Level, counts: LevelCounts) -> CoreLevel:
        """The level's chunks, compressed, then its counts, each written whole before it is named."""
        depth = level.depth
        checksums: list[int] = []
        size = 0

        def write(stream: BinaryIO) -> None:
            nonlocal size
            for chunk in compressed_chunks(tables, level):
                stream.write(_RECORD.pack(chunk.slots, len(chunk.blob), chunk.checksum))
                stream.write(chunk.blob)
                checksums.append(chunk.checksum)
                size += _RECORD.size + len(chunk.blob)

        write_whole(self.chunks_file(depth), write)
        written = len(checksums)
        binding = counts_binding(self.game, depth, counts, checksums)
        saved = {"counts": asdict(counts), "chunks": written, "bytes": size, "binding": binding}
        write_bytes_whole(self._counts_file(depth), json.dumps(saved).encode())
        return CoreLevel(depth, counts, written, self.chunks_file(depth))

    def take_up(self, tables: RankedTables, level: CoreLevel) -> Level:
        """A finished level's codes, taken back from its chunks (the next level up reads them);
        WorkFolderDamagedError for a chunk that is not what the build saved."""

        def decode(chunk: CoreChunk) -> tuple[int, bytes | None]:
            try:
                return chunk.chunk, core_codes(chunk.blob, chunk.slots)
            except ValueError as refused:
                raise WorkFolderDamagedError(
                    level.depth, level.path, f"chunk {chunk.chunk} is refused: {refused}"
                ) from None

        return level_from_chunks(tables, level.depth, level.chunks(self.game), CHUNK_SLOTS, decode).level

    def remove(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


def compressed_chunks(tables: RankedTables, level: Level) -> Iterator[CoreChunk]:
    """The level's stored chunks, compressed, each with its checksum, in order (on one thread: the
    build saves a level while it solves the next on every core)."""
    game, depth = tables.game, level.depth
    squeeze = compressor()
    for number, data in chunks_of_level(tables, level, CHUNK_SLOTS):
        length = len(data) if data is not None else _chunk_length(tables, depth, number)
        blob: bytes = zero_chunk(length) if data is None else squeeze.compress(data)
        yield CoreChunk(number, length, blob, chunk_checksum(game.name, depth, number, blob))


def _chunk_length(tables: RankedTables, depth: int, number: int) -> int:
    return min(CHUNK_SLOTS, level_slots(tables.cells, depth) - number * CHUNK_SLOTS)


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


LevelProgress = Callable[[int, int], None]
"""progress(done, total) within one level, in its solver's units (canonical sets, tasks)."""
LevelSolver = Callable[[int, Level | None, LevelProgress], tuple[Level, LevelCounts]]


class SolveProgress:
    """The whole solve's progress: the levels this build solves, each weighted by its work (boards
    held and their children: `level_work`), so that a rate and a time left are the whole job's."""

    STAGE: Final = "solving levels"

    def __init__(self, game: Game, depths: range, progress: Progress) -> None:
        self.progress = progress
        self.work = {depth: level_work(game, depth) for depth in depths}
        self.before: dict[int, int] = {}
        self.total = 0
        for depth in depths:
            self.before[depth] = self.total
            self.total += self.work[depth]

    def level(self, depth: int) -> LevelProgress:
        """What level `depth`'s solver reports to: its share of the level, as work of the whole."""
        before, work = self.before[depth], self.work[depth]

        def report(done: int, total: int) -> None:
            self.progress(f"{self.STAGE} (level {depth})", before + work * done // max(1, total), self.total)

        return report


@dataclass(frozen=True)
class CoreBuild:
    tables: RankedTables
    levels: list[CoreLevel]  # by depth, 0 first
    resumed_at: int | None  # the shallowest level an earlier, killed build had finished
    held: list[Level] | None  # every level's codes, by depth, where they were kept (`keep`)
    empty_code: int  # the empty board's code


def build_core(
    game: Game,
    folder: WorkFolder,
    progress: Progress,
    notice: Callable[[str], None],
    client: Any = None,
    *,
    keep: bool = False,
    fresh: bool = False,
) -> CoreBuild:
    """Solve every level not finished by an earlier build into `folder` (`fresh`: none is taken
    up), telling `notice` when an earlier build's levels are taken up or a damaged one is solved
    again; every level, by depth, and with `keep` every level's codes. With a Dask `client`, each
    level is solved by tasks on its workers (`ttt_db.build.cluster`), in the same folder."""
    done, damage = folder.claim(fresh=fresh)
    tables = RankedTables(game, compiled() if client is not None else None)
    n = game.cells
    held: dict[int, Level] = {}
    below = None
    while done:
        try:
            below = folder.take_up(tables, done[-1])
            held = {level.depth: folder.take_up(tables, level) for level in done} if keep else {}
            break
        except WorkFolderDamagedError as error:  # its checksums held, yet it does not decompress
            damage = error
            done = [level for level in done if level.depth > error.depth]
    if done:
        notice(
            f"resuming the build of {game} stopped earlier: levels {n} to {done[-1].depth} are "
            f"solved already (kept in {folder.path})"
        )
    if damage is not None:
        above = ", and every level above it" if damage.depth else ""
        where = f"level {damage.depth} in the work folder ({damage.path})"
        notice(f"{where} is damaged ({damage.why}): solving it again{above}")
    levels = {level.depth: level for level in done}
    solver: LevelSolver
    if client is not None:
        from ttt_db.build.cluster import DaskLevels

        solver = DaskLevels(client, tables, folder.path)
    else:

        def solver(depth: int, below: Level | None, step: LevelProgress) -> tuple[Level, LevelCounts]:
            return solve_level(tables, depth, below, step)

    depths = range(done[-1].depth - 1 if done else n, -1, -1)
    solving = SolveProgress(game, depths, progress)
    with ThreadPoolExecutor(1) as saver:  # a level is saved while the next is solved from it
        saving: Future[CoreLevel] | None = None
        for depth in depths:
            level, counts = solver(depth, below, solving.level(depth))
            if saving is not None:
                saved = saving.result()  # in depth order: a resumed build finds every level above
                levels[saved.depth] = saved
            saving = saver.submit(folder.save, tables, level, counts)
            if keep:
                held[depth] = level
            below = level
        if saving is not None:
            saved = saving.result()
            levels[saved.depth] = saved
    return CoreBuild(
        tables,
        [levels[depth] for depth in range(n + 1)],
        done[-1].depth if done else None,
        [held[depth] for depth in range(n + 1)] if keep else None,
        int(below.codes[0]) if below is not None else 0,
    )
