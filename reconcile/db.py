"""DuckDB connections, configured on purpose for logs larger than memory.

DuckDB's defaults suit interactive use: 80 % of RAM, a spill folder in the working
directory (which may be the user's log set), insertion order kept. The reconciler
sets each of them: a memory limit, a spill folder of its own that it removes, and
UTC as the session time zone so that zoned timestamps convert without surprises.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import weakref
from dataclasses import dataclass
from pathlib import Path

import duckdb

from reconcile.errors import UsageError, first_line

# The memory limit when none is given: 40 % of the memory this process may use (the
# machine's, or its control group's when lower), at most 5 GB. DuckDB's own default
# is 80 %; the process around it (Python, Arrow buffers, the report) needs the rest,
# and peak resident memory runs about 10 % above DuckDB's limit.
DEFAULT_MEMORY_SHARE = 0.4
DEFAULT_MEMORY_CAP = 5 * 1000**3

# The settings a user gives, by the options (and environment variables) that give them.
_OPTIONS = {
    "memory_limit": ("--memory-limit", "RECONCILE_MEMORY_LIMIT"),
    "temp_directory": ("--temp-dir", "RECONCILE_TEMP_DIR"),
    "threads": ("--threads", "RECONCILE_THREADS"),
}


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
    """DuckDB's memory limit when none is given, as DuckDB reads it (e.g. "5000MB")."""
    memory = available_memory()
    limit = (
        DEFAULT_MEMORY_CAP
        if memory is None
        else min(DEFAULT_MEMORY_CAP, int(memory * DEFAULT_MEMORY_SHARE))
    )
    return f"{max(limit // 1000**2, 256)}MB"


@dataclass(frozen=True)
class EngineConfig:
    """Resources the engine may use.

    ``memory_limit`` is DuckDB's (e.g. ``"4GB"``; default: 40 % of the memory
    available, at most 5 GB), past which sorts, joins, aggregates and windows spill
    into ``temp_directory`` (default: a fresh folder under the system temporary
    directory, removed on close). ``threads`` defaults to every core.
    Environment variables ``RECONCILE_MEMORY_LIMIT``, ``RECONCILE_TEMP_DIR`` and
    ``RECONCILE_THREADS`` override the defaults.
    """

    memory_limit: str | None = None
    temp_directory: Path | None = None
    threads: int | None = None

    @classmethod
    def from_env(cls) -> EngineConfig:
        threads = os.environ.get("RECONCILE_THREADS")
        temp = os.environ.get("RECONCILE_TEMP_DIR")
        return cls(
            memory_limit=os.environ.get("RECONCILE_MEMORY_LIMIT"),
            temp_directory=Path(temp) if temp else None,
            threads=int(threads) if threads else None,
        )


class Engine:
    """One DuckDB connection and the spill folder it owns."""

    def __init__(self, config: EngineConfig | None = None) -> None:
        config = config or EngineConfig.from_env()
        self._owned_temp: Path | None = None
        if config.temp_directory is None:
            self._owned_temp = Path(tempfile.mkdtemp(prefix="reconcile-spill-"))
            temp = self._owned_temp
            # an engine never closed (a notebook's log set, left open for the session)
            # still removes its spill folder, when collected or when Python exits
            self._remove_temp = weakref.finalize(self, shutil.rmtree, temp, ignore_errors=True)
        else:
            temp = config.temp_directory
        self.con = duckdb.connect(":memory:")
        settings = {
            "memory_limit": config.memory_limit or default_memory_limit(),
            "temp_directory": str(temp),
            "preserve_insertion_order": False,
            "TimeZone": "UTC",
            "enable_progress_bar": False,
        }
        if config.threads:
            settings["threads"] = config.threads
        for name, value in settings.items():
            # SET takes no bound parameters; the names are ours, values are quoted.
            try:
                self.con.execute(f"SET {name} = {_literal(value)}")
            except duckdb.Error as error:
                self.close()
                if name not in _OPTIONS:
                    raise
                option, variable = _OPTIONS[name]
                raise UsageError(
                    f"{name.replace('_', ' ')} {value!r} ({option} or {variable}):"
                    f" {first_line(error)}"
                ) from None

    def close(self) -> None:
        self.con.close()
        if self._owned_temp is not None:
            self._remove_temp()
            self._owned_temp = None

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _literal(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return quote_literal(str(value))


def quote_identifier(name: str) -> str:
    """An SQL identifier, double-quoted."""
    return '"' + name.replace('"', '""') + '"'


def quote_literal(value: str) -> str:
    """An SQL string literal, single-quoted."""
    return "'" + value.replace("'", "''") + "'"
