"""reconcile: how far paginated event ingestion is really complete, and why not.

The library API, shared by the ``reconcile`` command and notebooks:

* :func:`open_logset` opens a log set (a folder of Parquet tables) as DuckDB views
  and Polars LazyFrames, after checking it against the contract;
* :func:`validate_logset` reports every way a log set breaks the contract;
* :func:`watermarks` gives each partition's eligible-prefix watermark and
  certificates as of a time, and :class:`Analysis` the same with their history.
"""

from reconcile.api import open_logset
from reconcile.db import EngineConfig
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
