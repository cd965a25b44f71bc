"""The result of validating a log set: every problem, and what was read."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from reconcile.problems import Problem


@dataclass(frozen=True)
class TableRead:
    """A table as validation found it; ``rows`` is None when it was not scanned."""

    name: str
    files: int
    rows: int | None


@dataclass(frozen=True)
class ValidationReport:
    """Every problem found in a log set (none: it is valid)."""

    logset: str
    coordinate: str
    problems: tuple[Problem, ...]
    tables: tuple[TableRead, ...] = field(default=())
    # the mapping file the log set was read through, if any
    mapping: str | None = None

    @property
    def ok(self) -> bool:
        return not self.problems

    def headline(self) -> str:
        if self.ok:
            return f"log set {self.logset} is valid"
        count = len(self.problems)
        return f"log set {self.logset} is invalid: {count} problem{'s' if count > 1 else ''}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "logset": self.logset,
            "valid": self.ok,
            # no table read: no coordinate to type (the text report says "none")
            "coordinate": self.coordinate if self.tables else None,
            "mapping": self.mapping,
            "tables": [{"table": t.name, "files": t.files, "rows": t.rows} for t in self.tables],
            "problems": [p.to_dict() for p in self.problems],
        }

    def to_frame(self) -> pl.DataFrame:
        """The problems as a frame: one row each, examples as JSON text."""
        return pl.DataFrame(
            [
                {
                    "table": p.table,
                    "file": p.file,
                    "column": p.column,
                    "source": p.source,
                    "check": p.check,
                    "failing_rows": p.failing_rows,
                    "message": p.message,
                    "examples": json.dumps(list(p.examples), default=str),
                }
                for p in self.problems
            ],
            schema={
                "table": pl.String,
                "file": pl.String,
                "column": pl.String,
                "source": pl.String,
                "check": pl.String,
                "failing_rows": pl.Int64,
                "message": pl.String,
                "examples": pl.String,
            },
        )
