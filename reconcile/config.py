"""What the engine may use: memory, threads and spill folder (:class:`EngineConfig`),
and the checks of the values a user gives for them.

Plain Python, no DuckDB: the command line's parser checks ``--threads`` and
``--memory-limit`` with it before any engine is loaded.
"""

from __future__ import annotations

import contextlib
import numbers
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from reconcile.errors import UsageError

# The memory limit when none is given: 40 % of the memory this process may use (the
# machine's, or its control group's when lower), at most 3 GB. DuckDB's own default
# is 80 %; the process around it (Python, Arrow buffers, the report) needs the rest,
# and peak resident memory runs 5-20 % above DuckDB's limit. The cap keeps a plain
# audit of 100 M receipts under 4 GiB: 3.3-3.5 GB peak at 3 GB (bench/RESULTS.md, the
# runs of 2026-12-06); 5.3 GB at 5 GB and no faster (161 s against 154 s at 3 GB, one
# run each on 2026-12-06, not in RESULTS.md: commit f516831).
DEFAULT_MEMORY_SHARE = 0.4
DEFAULT_MEMORY_CAP = 3 * 1000**3
# --threads: at most this many per core (more only adds contention and memory; the
# cap keeps a typo such as 10000 from starting ten thousand threads).
THREADS_PER_CORE = 4
# The memory one thread of the audit needs for DuckDB to spill rather than fail: its
# hash aggregates reserve room per thread. Measured (bench notes in README): at 1 M
# and 10 M receipts one thread audits in 65-80 MB, two fail at 150 MB and pass at
# 170 MB. An engine runs no more threads than its memory limit holds of these.
THREAD_MEMORY = 96 * 1000**2
_UNITS = {
    "b": 1,
    "byte": 1,
    "bytes": 1,
    "kb": 1000,
    "mb": 1000**2,
    "gb": 1000**3,
    "tb": 1000**4,
    "kib": 1024,
    "mib": 1024**2,
    "gib": 1024**3,
    "tib": 1024**4,
}

# A size as DuckDB reads one: a number and a unit ("4GB", "512 MiB", "80%").
_SIZE = re.compile(r"\s*[0-9]+(\.[0-9]+)?\s*([kmgt]i?b|b|bytes?|%)?\s*", re.IGNORECASE)


def available_memory() -> int | None:
    """Bytes of memory this process may use: physical memory, or the control
    group's limit where that is lower; None where neither can be read."""
    sizes: list[int] = []
    with contextlib.suppress(ValueError, OSError, AttributeError):
        sizes.append(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            text = Path(path).read_text().strip()
        except OSError:
            continue
        if text.isdigit():
            sizes.append(int(text))
    return min(sizes) if sizes else None


def default_memory_limit() -> str:
    """DuckDB's memory limit when none is given, as DuckDB reads it (e.g. "3000MB")."""
    memory = available_memory()
    limit = (
        DEFAULT_MEMORY_CAP
        if memory is None
        else min(DEFAULT_MEMORY_CAP, int(memory * DEFAULT_MEMORY_SHARE))
    )
    return f"{max(limit // 1000**2, 256)}MB"


def max_threads() -> int:
    """The most threads an engine may be given: a few per core of this machine."""
    return THREADS_PER_CORE * (os.cpu_count() or 1)


def check_threads(value: int, given: str) -> int:
    """``value`` when it is a sane thread count, else a UsageError naming ``given``
    (the option or variable that gave it)."""
    most = max_threads()
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise UsageError(f"threads {value!r} ({given}): a whole number, 1 or more")
    if value < 1:
        raise UsageError(f"threads {value} ({given}): give 1 or more")
    if value > most:
        raise UsageError(
            f"threads {value} ({given}): at most {most} here"
            f" ({THREADS_PER_CORE} per core, {os.cpu_count() or 1} cores)"
        )
    return int(value)


def check_memory_limit(value: str, given: str) -> str:
    """``value`` when it reads as a size (``4GB``, ``512MiB``, ``80%``), else a
    UsageError naming ``given``."""
    if not _SIZE.fullmatch(value):
        raise UsageError(
            f"memory limit {value!r} ({given}): not a size; give e.g. 4GB, 512MB or 80%"
        )
    if not float(re.sub(r"[^0-9.]", "", value)):
        raise UsageError(f"memory limit {value!r} ({given}): give more than nothing")
    return value.strip()


# Why the reconciler writes nothing into a folder, by what the folder is
_NEVER_INTO = {
    "the log set": "a log set is never written into",
    "the report folder --out": "a report folder holds its report alone",
}


# How the spill folder's default place is named where it is refused: the system's
# temporary folder, which TMPDIR sets
SYSTEM_TEMP = "the system's temporary folder (TMPDIR; --temp-dir chooses another)"


def refuse_inside(option: str, path: str | Path, folders: Mapping[str, str | Path | None]) -> None:
    """Refuse a path the reconciler writes (a profile, the spill folder) inside one of
    ``folders`` (``{what: folder}``; None: none): the log set, which it never writes
    into, or the report folder, which holds nothing but the report. ``option`` names
    where the path was given. The command line and :func:`reconcile.open_logset`
    both check here."""
    target = Path(path).resolve()
    for what, folder in folders.items():
        if folder is None:
            continue
        base = Path(folder).resolve()
        if target == base or target.is_relative_to(base):
            why = _NEVER_INTO.get(what, "the reconciler never writes into it")
            raise UsageError(
                f"{option} {path} is inside {what} {folder}: {why}; choose a place outside it"
            )


def size_bytes(text: str) -> int | None:
    """A size as DuckDB reads a memory limit ("4GB", "512 MiB", "80%"), in bytes; None
    where it cannot be told (a share of memory that cannot be read)."""
    match = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([a-z%]*)\s*", text.lower())
    if match is None:
        return None
    number, unit = float(match.group(1)), match.group(2) or "b"
    if unit == "%":
        memory = available_memory()
        return None if memory is None else int(memory * number / 100)
    factor = _UNITS.get(unit)
    return None if factor is None else int(number * factor)


def threads_for(config: EngineConfig) -> int:
    """The threads an engine runs: those asked for (default: every core), but no more
    than its memory limit holds at :data:`THREAD_MEMORY` each, so that a small limit
    spills on fewer threads rather than failing on many."""
    wanted = config.threads or os.cpu_count() or 1
    limit = size_bytes(config.memory_limit or default_memory_limit())
    if limit is None:
        return wanted
    return max(1, min(wanted, limit // THREAD_MEMORY))


@dataclass(frozen=True)
class EngineConfig:
    """Resources the engine may use.

    ``memory_limit`` is DuckDB's (e.g. ``"4GB"``; default: 40 % of the memory
    available, at most 3 GB), past which sorts, joins, aggregates and windows spill
    into a fresh folder under ``temp_directory`` (a path or text; default: the system
    temporary directory), removed on close; a log set opened with it must not hold
    it (:func:`refuse_inside`: a log set is never written into). ``threads``
    defaults to every core, and may be at most :data:`THREADS_PER_CORE` per core.
    Environment variables
    ``RECONCILE_MEMORY_LIMIT``, ``RECONCILE_TEMP_DIR`` and ``RECONCILE_THREADS``
    override the defaults; a value that is not a size or a count is a UsageError.
    """

    memory_limit: str | None = None
    temp_directory: Path | str | None = None
    threads: int | None = None

    def __post_init__(self) -> None:
        # a folder given as text (or any path-like) is read as a Path; anything else
        # is refused here rather than failing later in the engine
        temp: object = self.temp_directory
        if temp is None or isinstance(temp, Path):
            return
        if isinstance(temp, (str, os.PathLike)) and not isinstance(temp, bytes):
            # empty text is no folder, as an empty RECONCILE_TEMP_DIR
            object.__setattr__(self, "temp_directory", Path(temp) if str(temp) else None)
            return
        raise UsageError(
            f"EngineConfig temp_directory {temp!r}: give a folder as a path or text,"
            f" not {type(temp).__name__}"
        )

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> EngineConfig:
        env = os.environ if environ is None else environ
        threads = env.get("RECONCILE_THREADS", "").strip()
        memory = env.get("RECONCILE_MEMORY_LIMIT", "").strip()
        temp = env.get("RECONCILE_TEMP_DIR", "")
        count = None
        if threads:
            if not re.fullmatch(r"[+-]?[0-9]+", threads):
                raise UsageError(f"threads {threads!r} (RECONCILE_THREADS): not a whole number")
            count = check_threads(int(threads), "RECONCILE_THREADS")
        return cls(
            memory_limit=check_memory_limit(memory, "RECONCILE_MEMORY_LIMIT") if memory else None,
            temp_directory=Path(temp) if temp else None,
            threads=count,
        )
