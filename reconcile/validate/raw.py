"""A value as the file holds it, for an example row whose normalized value is gone.

A time the engine cannot hold (before 1677, after 2262, an int64 end) reads as null
in the normalized view, so a ``timestamp_in_range`` example showed ``None``, which
reads like a null-value problem. The file's own value is read back here, from the
one row group that holds the row, for the few example rows only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq


def raw_text(path: Path, column: str, row: int) -> str | None:
    """The value of ``column`` at ``row`` (0-based) of a Parquet file, as text; None
    where it cannot be read back (no such column, not Parquet)."""
    try:
        file = pq.ParquetFile(path)
        start = 0
        for group in range(file.metadata.num_row_groups):
            rows = file.metadata.row_group(group).num_rows
            if row < start + rows:
                values = file.read_row_group(group, columns=[column]).column(0)
                value = values.slice(row - start, 1)
                text = pc.cast(value, pa.string())[0].as_py()
                return None if text is None else str(text)
            start += rows
    except (OSError, ValueError, KeyError, pa.ArrowException):
        return None
    return None


def with_raw_values(
    examples: tuple[dict[str, Any], ...], root: Path, column: str, file_column: str | None = None
) -> tuple[dict[str, Any], ...]:
    """``examples`` with a null ``column`` replaced by the file's own value as text.
    With ``file_column`` (a mapped table's: ``column`` is read from that column of the
    user's file, converted), ``column`` is replaced whatever it holds, by the user's
    column and its value: a converted time past the engine's range is only its
    saturated end, a time the file never held."""
    shown = []
    for example in examples:
        found = None
        replace = file_column is not None or example.get(column) is None
        if replace and example.get("file") and example.get("row") is not None:
            found = raw_text(
                root / str(example["file"]), file_column or column, int(example["row"])
            )
        if found is None:
            shown.append(example)
            continue
        name = file_column or column
        if name != column and name in example:
            name = column  # the user's column shares a name shown already: keep ours
        shown.append(
            {(name if k == column else k): (f"{found} (as written)" if k == column else v)
             for k, v in example.items()}
        )  # fmt: skip
    return tuple(shown)
