"""reconcile: how far paginated event ingestion is really complete, and why not.

The library API, shared by the ``reconcile`` command and notebooks:

* :func:`open_logset` opens a log set (a folder of Parquet tables) as DuckDB views
  and Polars LazyFrames, after checking it against the contract;
* :func:`validate_logset` reports every way a log set breaks the contract;
* :func:`watermarks` gives each partition's eligible-prefix watermark and
  certificates as of a time, and :class:`Analysis` the same with their history.

Each name is imported on first use (:mod:`reconcile.lazy`), so that importing the
package, or starting the command line, loads no engine.
"""

from typing import TYPE_CHECKING

from reconcile.lazy import exports

if TYPE_CHECKING:
    from reconcile.api import open_logset
    from reconcile.config import EngineConfig
    from reconcile.engine import Analysis, watermarks
    from reconcile.errors import (
        InputError,
        InternalError,
        InvalidLogSet,
        ReconcileError,
        ResourceError,
        UsageError,
    )
    from reconcile.logset.load import LogSet
    from reconcile.validate import ValidationReport, validate_logset

__all__ = [
    "Analysis",
    "EngineConfig",
    "InputError",
    "InternalError",
    "InvalidLogSet",
    "LogSet",
    "ReconcileError",
    "ResourceError",
    "UsageError",
    "ValidationReport",
    "open_logset",
    "validate_logset",
    "watermarks",
]

if not TYPE_CHECKING:  # mypy checks the names above, not a __getattr__
    __getattr__ = exports(
        __name__,
        {
            "Analysis": "reconcile.engine.analysis",
            "EngineConfig": "reconcile.config",
            "InputError": "reconcile.errors",
            "InternalError": "reconcile.errors",
            "InvalidLogSet": "reconcile.errors",
            "LogSet": "reconcile.logset.load",
            "ReconcileError": "reconcile.errors",
            "ResourceError": "reconcile.errors",
            "UsageError": "reconcile.errors",
            "ValidationReport": "reconcile.validate.report",
            "open_logset": "reconcile.api",
            "validate_logset": "reconcile.validate",
            "watermarks": "reconcile.engine.analysis",
        },
    )
