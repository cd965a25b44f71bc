"""A problem found in a log set: where it is, what rule it breaks, and examples.

Problems are plain data; validation collects them all before anything is reported,
and the renderers (text, JSON, a Polars frame) sit on top.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# Example rows a problem shows, unless asked for more (``--max-examples``).
DEFAULT_EXAMPLES = 5


@dataclass(frozen=True)
class Problem:
    """One broken rule of the contract, in one table and column.

    ``files`` lists the files (relative to the log set) where it was found, and
    ``failing_rows`` how many rows break it (``None`` when the problem is not about
    rows, such as an unreadable file); ``source`` is, for a table read through a
    mapping, what the user's mapping says ``column`` comes from. ``examples`` holds a
    few offending rows, each with its ``file`` and ``row`` (0-based row number within
    the file) when known.
    """

    check: str
    message: str
    table: str | None = None
    column: str | None = None
    files: tuple[str, ...] = ()
    failing_rows: int | None = None
    examples: tuple[dict[str, Any], ...] = field(default=())
    # in a table read through a mapping: the user's column(s) behind ``column``
    source: str | None = None

    @property
    def file(self) -> str | None:
        """The first file the problem was found in."""
        return self.files[0] if self.files else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "file": self.file,
            "files": list(self.files),
            "column": self.column,
            **({"source": self.source} if self.source is not None else {}),
            "check": self.check,
            "message": self.message,
            "failing_rows": self.failing_rows,
            "examples": [dict(e) for e in self.examples],
        }
