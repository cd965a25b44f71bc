"""DuckDB connections, configured on purpose for logs larger than memory and for
log sets that cannot be trusted.

DuckDB's defaults suit interactive use: 80 % of RAM, a spill folder in the working
directory (which may be the user's log set), insertion order kept, any file of the
machine readable from SQL, extensions installed from the network when a query names
one. The reconciler sets each of them: a memory limit, a spill folder of its own
that it removes (and that a later run removes when its owner was killed), UTC as the
session time zone so that zoned timestamps convert without surprises, and a
**sandbox** (issue 19): a connection reads only the files it is given (the log
set's own; a mapping's SQL runs in it too) and its spill folder, never installs or
loads an extension, and its configuration is locked, so that no query can lift any
of this.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import shutil
import tempfile
import time
import weakref
from collections.abc import Iterable
from pathlib import Path
from typing import IO

import duckdb

from reconcile.config import (
    EngineConfig,
    check_memory_limit,
    check_threads,
    default_memory_limit,
    threads_for,
)
from reconcile.errors import InputError, ResourceError, UsageError, first_line
from reconcile.signals import interrupts_deferred

# The settings a user gives, by the options (and environment variables) that give them.
_OPTIONS = {
    "memory_limit": ("--memory-limit", "RECONCILE_MEMORY_LIMIT"),
    "temp_directory": ("--temp-dir", "RECONCILE_TEMP_DIR"),
    "threads": ("--threads", "RECONCILE_THREADS"),
}

SPILL_PREFIX = "reconcile-spill-"
# A spill folder is made under this prefix, locked, then renamed to SPILL_PREFIX: a
# sweep by another process never sees one of ours before its lock is held.
_MAKING_PREFIX = "reconcile-making-"
_SPILL_LOCK = "owner.lock"
# A spill folder without its lock file (one from before the lock), or a folder left
# half made by a run killed while making it: removed only once this old.
_UNLOCKED_AGE_S = 3600


def sandbox(
    con: duckdb.DuckDBPyConnection,
    readable: Iterable[str | Path] = (),
    folders: Iterable[str | Path] = (),
) -> duckdb.DuckDBPyConnection:
    """Shut ``con`` in: from now on it reads only the files ``readable`` names and
    what lies under ``folders`` (paths as the queries will name them), installs and
    loads no extension (those the reconciler uses are built in), and its settings
    are locked, so that no query (a mapping's SQL included) can change any of this.
    Settings of the connection's own must be made before."""
    files = [str(path) for path in readable]
    # a readable file as the readers name it (glob_literal), a pattern of it alone (a
    # path with a backslash is refused there: its pattern would name another file)
    files += [glob_literal(path) for path in files if glob_literal(path) != path]
    dirs = [str(path) for path in folders]
    for name, value in (
        ("autoinstall_known_extensions", False),
        ("autoload_known_extensions", False),
        ("allowed_directories", dirs),
        ("allowed_paths", files),
        ("enable_external_access", False),
        ("lock_configuration", True),
    ):
        # SET takes no bound parameters; the names are ours, values are quoted.
        con.execute(f"SET {name} = {_literal(value)}")
    return con


def connect(
    readable: Iterable[str | Path] = (), folders: Iterable[str | Path] = ()
) -> duckdb.DuckDBPyConnection:
    """A fresh in-memory DuckDB in the sandbox (:func:`sandbox`), in UTC, for work
    that is not the engine's (binding a mapping, reading a file's bytes in a task)."""
    con = duckdb.connect(":memory:")
    # GLOBAL: TimeZone is a setting of each cursor, and a cursor's own starts from
    # the machine's zone (a naive time would be read in it), not the connection's
    con.execute("SET GLOBAL TimeZone = 'UTC'")
    # no spill folder: DuckDB's default, .tmp of the current folder, is a folder the
    # sandbox lets a query read, and a log set's mapping could read it (a secret left
    # in ./.tmp printed in an error). This connection's work is small; the engine's
    # own spills into a folder of its own (Engine).
    con.execute("SET temp_directory = ''")
    return sandbox(con, readable, folders)


def _spill_base(config: EngineConfig) -> Path:
    return Path(config.temp_directory or tempfile.gettempdir())


def sweep_spill_folders(base: Path) -> list[Path]:
    """Remove the spill folders under ``base`` whose engines are gone (a run killed
    before it could remove its own): each holds a lock while its engine lives.
    Returns those removed."""
    removed: list[Path] = []
    try:
        candidates = sorted(base.glob(f"{SPILL_PREFIX}*"))
        making = sorted(base.glob(f"{_MAKING_PREFIX}*"))
    except OSError:
        return removed
    for folder in candidates + making:
        if not folder.is_dir() or folder.is_symlink():
            continue
        lock = folder / _SPILL_LOCK
        try:
            if folder.name.startswith(_MAKING_PREFIX):
                raise FileNotFoundError(lock)  # judged by its age alone
            with lock.open("rb") as handle:
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:
                    continue  # its engine is alive
        except FileNotFoundError:
            try:
                if time.time() - folder.stat().st_mtime < _UNLOCKED_AGE_S:
                    continue
            except OSError:
                continue
        except OSError:
            continue  # not ours to judge (another user's)
        shutil.rmtree(folder, ignore_errors=True)
        removed.append(folder)
    return removed


def _own_spill_folder(config: EngineConfig) -> tuple[Path, IO[bytes]]:
    """A fresh spill folder under the configured base, and the open lock file that
    says it is in use; stale folders of killed runs are swept first."""
    base = _spill_base(config)
    try:
        base.mkdir(parents=True, exist_ok=True)
        sweep_spill_folders(base)
        making = Path(tempfile.mkdtemp(prefix=f"{_MAKING_PREFIX}{os.getpid()}-", dir=base))
    except OSError as error:
        raise _no_spill_folder(base, error) from None
    try:
        handle = (making / _SPILL_LOCK).open("wb")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            # locked, it takes the name a sweep looks at (the lock moves with it)
            folder = base / (SPILL_PREFIX + making.name.removeprefix(_MAKING_PREFIX))
            making.rename(folder)
        except OSError:
            handle.close()
            raise
    except OSError as error:
        shutil.rmtree(making, ignore_errors=True)
        raise _no_spill_folder(base, error) from None
    return folder, handle


def _no_spill_folder(base: Path, error: OSError) -> ResourceError:
    option, variable = _OPTIONS["temp_directory"]
    return ResourceError(
        f"cannot make a spill folder under {base}: {error.strerror or error}",
        resource="disk",
        hint=f"point {option} (or {variable}) at a writable folder with free space",
    )


def _release(folder: Path, handle: IO[bytes]) -> None:
    shutil.rmtree(folder, ignore_errors=True)
    with contextlib.suppress(OSError):
        handle.close()


class Engine:
    """One DuckDB connection, sandboxed to the files it may read, and the spill
    folder it owns.

    ``readable`` are the files the engine's queries may open (a log set's, as its
    discovery found them); nothing else of the machine can be read from SQL.
    """

    def __init__(
        self, config: EngineConfig | None = None, *, readable: Iterable[str | Path] = ()
    ) -> None:
        config = config or EngineConfig.from_env()
        if config.threads is not None:
            check_threads(config.threads, "EngineConfig threads; --threads or RECONCILE_THREADS")
        if config.memory_limit is not None:
            check_memory_limit(
                config.memory_limit,
                "EngineConfig memory_limit; --memory-limit or RECONCILE_MEMORY_LIMIT",
            )
        # a Ctrl-C or SIGTERM while the folder is made waits until its removal is
        # registered: it never leaves a folder made and forgotten
        with interrupts_deferred():
            temp, handle = _own_spill_folder(config)
            self._temp: Path | None = temp
            # an engine never closed (a notebook's log set, left open for the session)
            # still removes its spill folder, when collected or when Python exits
            self._remove_temp = weakref.finalize(self, _release, temp, handle)
        self.con = duckdb.connect(":memory:")
        settings: dict[str, object] = {
            "memory_limit": config.memory_limit or default_memory_limit(),
            "temp_directory": str(temp),
            "preserve_insertion_order": False,
            "TimeZone": "UTC",
            "enable_progress_bar": False,
        }
        self.threads = threads_for(config)
        settings["threads"] = self.threads
        for name, value in settings.items():
            try:
                # GLOBAL where DuckDB has it so: the cursors of the connection (an
                # analysis works through one) take it too. TimeZone is otherwise a
                # cursor's own, and a new cursor's is the machine's: there a naive
                # time (T, a hive key) was read in local time
                scope = "" if name in _CURSOR_SETTINGS else "GLOBAL "
                self.con.execute(f"SET {scope}{name} = {_literal(value)}")
            except duckdb.Error as error:
                self.close()
                if name not in _OPTIONS:
                    raise
                option, variable = _OPTIONS[name]
                raise UsageError(
                    f"{name.replace('_', ' ')} {value!r} ({option} or {variable}):"
                    f" {first_line(error)}"
                ) from None
        sandbox(self.con, readable, [temp])

    @property
    def spill_folder(self) -> Path | None:
        """The folder DuckDB spills into (None once closed)."""
        return self._temp

    def close(self) -> None:
        self.con.close()
        if self._temp is not None:
            self._remove_temp()
            self._temp = None

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# Settings DuckDB keeps per cursor alone (no GLOBAL form); a cursor without them has
# DuckDB's defaults, as the engine wants them (no progress bar in the Python client)
_CURSOR_SETTINGS = frozenset({"enable_progress_bar"})


def _literal(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(quote_literal(str(v)) for v in value) + "]"
    return quote_literal(str(value))


def quote_identifier(name: str) -> str:
    """An SQL identifier, double-quoted."""
    return '"' + name.replace('"', '""') + '"'


def quote_literal(value: str) -> str:
    """An SQL string literal, single-quoted."""
    return "'" + value.replace("'", "''") + "'"


_GLOB_CHARACTERS = re.compile(r"[\[\]*?]")


def glob_literal(path: str | Path) -> str:
    """``path`` as DuckDB's file readers take it to mean that one file: they read every
    name as a glob pattern (``[ab].parquet`` read ``a.parquet``; ``*.parquet`` every
    file beside it), so each of ``[``, ``]``, ``*`` and ``?`` becomes a class of
    itself (``[[]``, ``[]]``, ``[*]``, ``[?]``). Their ``filename`` column gives the
    path as it is. A path holding a backslash, which they take for a folder separator
    (and no class of the pattern escapes), is refused: it would be read as another
    file, or as none (discovery names such a log set's files first)."""
    text = str(path)
    if "\\" in text:
        raise InputError(
            f"{text}: a file whose path holds a backslash cannot be read as itself (DuckDB"
            " takes it for a folder separator): rename it"
        )
    return _GLOB_CHARACTERS.sub(lambda m: f"[{m.group(0)}]", text)
