"""Where a Spark task may write: the executor's local disk."""

from __future__ import annotations

import os
from pathlib import Path


def work_dir() -> str | None:
    """Where a task lays its rows out: RECONCILE_TEMP_DIR, else the executor's local
    directories as Spark (SPARK_LOCAL_DIRS) or YARN (LOCAL_DIRS) give them, else the
    system's temporary directory (None)."""
    for name in ("RECONCILE_TEMP_DIR", "SPARK_LOCAL_DIRS", "LOCAL_DIRS"):
        value = os.environ.get(name, "")
        first = value.split(",")[0].strip()
        if first and Path(first).is_dir():
            return first
    return None


__all__ = ["work_dir"]
