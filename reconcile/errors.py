"""The one exception root of the reconciler, and its few kinds.

Every error the reconciler raises on purpose derives from :class:`ReconcileError`;
the command line maps them to exit codes in one place (``commands.failure``). A
message says what failed, where, and what to do. The kinds say whose the fault is:

* :class:`InputError` (and :class:`InvalidLogSet`), :class:`UsageError`: the log set
  or the command line; the user fixes it (exit 2);
* :class:`InternalError`: the reconciler's own fault; the user reports it (exit 3);
* :class:`ResourceError`: the engine ran out of memory or of spill space; the user
  gives it more, or asks for less at once (exit 4).

:func:`classify_engine_error` tells the last two apart for an error DuckDB raised
while the engine ran a named query of its own. This module does not import DuckDB
(the command line's parser loads it, and must start fast): an error of DuckDB's can
only exist once DuckDB is loaded, so it looks DuckDB up among the loaded modules.
"""

from __future__ import annotations

import errno
import sys
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    import duckdb

    from reconcile.validate.report import ValidationReport


class ReconcileError(Exception):
    """Root of every error the reconciler raises on purpose."""


class InputError(ReconcileError):
    """The log set cannot be read: a missing or empty directory, an unreadable file."""


class InvalidLogSet(InputError):
    """The log set breaks the contract (docs/contract.md §1); carries the full report."""

    def __init__(self, report: ValidationReport) -> None:
        self.report = report
        super().__init__(report.headline())


class UsageError(ReconcileError):
    """An option or argument the reconciler cannot act on."""


def _where(step: str | None, query: str | None) -> str:
    """The words ' in step S (query Q)', as much of them as is known."""
    text = f" in step {step}" if step else ""
    return text + (f" (query {query})" if query else "")


class InternalError(ReconcileError):
    """The reconciler's own fault, not the input's: a query of the engine that fails
    on a valid log set, or results the engine finds inconsistent. ``step`` and
    ``query`` name where, when known; the message ends with a request to report it."""

    def __init__(self, message: str, *, step: str | None = None, query: str | None = None) -> None:
        self.detail = message
        self.step = step
        self.query = query
        super().__init__(message)

    def __str__(self) -> str:
        return (
            f"internal error{_where(self.step, self.query)}: {self.detail}; this is a fault"
            " of the reconciler, not of the log set: please report it"
        )


Resource = Literal["memory", "disk"]

MEMORY_HINT = (
    "give the engine more memory (--memory-limit, or RECONCILE_MEMORY_LIMIT; the audit"
    " spills from about 100MB per thread), fewer threads (--threads), or a --temp-dir on"
    " a disk with room to spill into"
)
DISK_HINT = (
    "point --temp-dir (or RECONCILE_TEMP_DIR) at a writable folder on a disk with more"
    " free space, or raise --memory-limit so that less spills"
)


class ResourceError(ReconcileError):
    """The engine ran out of memory (``resource`` "memory") or of disk (``resource``
    "disk": the spill folder, or a folder being written, is full or not writable).
    ``step`` and ``query`` name where, when known; ``hint`` says what to set."""

    def __init__(
        self,
        message: str,
        *,
        resource: Resource = "memory",
        step: str | None = None,
        query: str | None = None,
        hint: str | None = None,
    ) -> None:
        self.detail = message
        self.resource: Resource = resource
        self.step = step
        self.query = query
        self.hint = (
            hint if hint is not None else (MEMORY_HINT if resource == "memory" else DISK_HINT)
        )
        super().__init__(message)

    def __str__(self) -> str:
        what = "out of memory" if self.resource == "memory" else "disk full or not writable"
        return f"{what}{_where(self.step, self.query)}: {self.detail}; {self.hint}"


# What DuckDB says when the spill folder is full or cannot be written: an
# OutOfMemoryException that names max_temp_directory_size (DuckDB caps the folder at
# the free space of its disk), or an error of the operating system's (ENOSPC, EDQUOT)
# in any message; or an IO error on the spill folder or a file of DuckDB's temporary
# storage (the engine's queries write nowhere else).
_FULL_MARKS = (
    "no space left on device",
    "disk quota exceeded",
    f'"errno":"{errno.ENOSPC}"',
    f'"errno":"{errno.EDQUOT}"',
)
_SPILL_MARKS = ("duckdb_temp", "failed to create directory", "read-only file system")


# DuckDB's words for a Python function of a query that Ctrl-C (or a signal handled as
# it) stopped
_UDF_INTERRUPTED = "Python exception occurred while executing the UDF: KeyboardInterrupt"


def query_interrupted(error: BaseException) -> bool:
    """Whether ``error`` is Ctrl-C stopping a DuckDB query: a running query ends in
    ``RuntimeError("Query interrupted")`` (or DuckDB's InterruptException) where
    Python would raise KeyboardInterrupt."""
    duckdb = sys.modules.get("duckdb")  # not imported for it: an error of it means it is
    if duckdb is not None and isinstance(error, duckdb.InterruptException):
        return True
    if duckdb is not None and isinstance(error, duckdb.Error) and _UDF_INTERRUPTED in str(error):
        # the signal came while DuckDB ran one of the engine's Python functions (a
        # lookup): the KeyboardInterrupt comes back inside an InvalidInput error
        return True
    return isinstance(error, RuntimeError) and str(error) == "Query interrupted"


def first_line(error: BaseException) -> str:
    """An error's message without DuckDB's advice after its first line (the advice
    names SQL settings; the reconciler's own hint names its options)."""
    text = str(error).strip()
    # DuckDB ends some first lines with a period, where the reconciler's hint follows
    return text.splitlines()[0].strip().removesuffix(".") if text else type(error).__name__


def resource_of(error: BaseException) -> Resource | None:
    """Which resource DuckDB ran out of ("memory" or "disk"), or None when ``error``
    is not about resources (a bad file, a bad query)."""
    duckdb = sys.modules.get("duckdb")
    if duckdb is None or not isinstance(error, duckdb.Error):
        return None
    text = str(error).lower()
    if isinstance(error, duckdb.OutOfMemoryException):
        return "disk" if "max_temp_directory_size" in text else "memory"
    if any(mark in text for mark in _FULL_MARKS):
        return "disk"
    if isinstance(error, duckdb.IOException) and any(mark in text for mark in _SPILL_MARKS):
        return "disk"
    return None


def resource_error(
    error: BaseException, *, step: str | None = None, query: str | None = None
) -> ResourceError | None:
    """A :class:`ResourceError` for ``error`` when DuckDB raised it for want of memory
    or spill space, else None: for code that turns DuckDB's other errors into
    problems of the input (a file that does not read), which these are not."""
    resource = resource_of(error)
    if resource is None:
        return None
    return ResourceError(first_line(error), resource=resource, step=step, query=query)


def classify_engine_error(
    error: duckdb.Error, *, step: str | None = None, query: str | None = None
) -> ResourceError | InternalError:
    """The reconciler's error for ``error``, raised by DuckDB while the engine ran
    ``query`` (its name) for ``step``: a :class:`ResourceError` when DuckDB ran out of
    memory or of spill space, else an :class:`InternalError` (a query of the engine
    failing on a log set that validation passed is the engine's fault).

    Raise it ``from error``, so that ``--debug`` shows DuckDB's own traceback::

        try:
            cursor.execute(sql)
        except duckdb.Error as error:
            raise classify_engine_error(error, step=step, query=name) from error
    """
    resources = resource_error(error, step=step, query=query)
    if resources is not None:
        return resources
    return InternalError(first_line(error), step=step, query=query)
