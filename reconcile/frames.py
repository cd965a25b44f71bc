"""Checking that a frame handed to a notebook function is the engine table it takes:
a Polars error naming a column, deep inside, says neither which table was wanted nor
where it comes from."""

from __future__ import annotations

import polars as pl

from reconcile.errors import UsageError

# A table a function takes: its name, where it comes from, the columns it must have
TableKind = tuple[str, str, tuple[str, ...]]


def check_table(function: str, frame: object, kind: TableKind) -> None:
    """Refuse a frame that is not the table ``function`` takes (``kind``): say which
    table, and where it comes from."""
    name, source, columns = kind
    if not isinstance(frame, pl.DataFrame):
        raise UsageError(
            f"{function}: give the {name} table ({source}), not {type(frame).__name__}"
        )
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise UsageError(
            f"{function}: this is not the {name} table (no {', '.join(missing)}): give {source}"
        )
