"""A mapping written as TOML text, with comments, in the layout users read."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from datetime import date, datetime
from typing import Any

from reconcile.mapping.spec import ColumnSpec, TableSpec

_BARE = re.compile(r"[A-Za-z0-9_-]+")


def key(name: str) -> str:
    """A TOML key: bare when it may be, else a quoted string."""
    return name if _BARE.fullmatch(name) else string(name)


def string(text: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's; DEL, which JSON leaves, and
    TOML does not, escaped too)."""
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


_UNSAFE = re.compile("[\x00-\x08\x0a-\x1f\x7f]")


def comment(text: str) -> str:
    """A TOML comment of one line: a line break or control character in ``text`` (an
    error message, a file's name) is shown as an escape, never written raw."""
    return "# " + _UNSAFE.sub(lambda m: f"\\x{ord(m.group(0)):02x}", text)


def value(item: Any) -> str:
    if isinstance(item, bool):
        return "true" if item else "false"
    if isinstance(item, (int, float)):
        return repr(item)
    if isinstance(item, (datetime, date)):
        return item.isoformat()
    if isinstance(item, (list, tuple)):
        return "[" + ", ".join(value(i) for i in item) + "]"
    return string(str(item))


def column_text(spec: ColumnSpec) -> str:
    """The right-hand side of a column's line."""
    if spec.is_constant:
        return "{ constant = " + value(spec.constant) + " }"
    if spec.column is not None and not spec.values and spec.timestamp is None:
        return string(spec.column)
    parts = [f"column = {string(spec.column)}" if spec.column is not None else ""]
    if spec.sql is not None:
        parts = [f"sql = {string(spec.sql)}"]
    if spec.timestamp is not None:
        parts.append(f"timestamp = {string(spec.timestamp)}")
    if spec.values:
        pairs = ", ".join(f"{key(k)} = {value(v)}" for k, v in spec.values)
        parts.append("values = { " + pairs + " }")
    return "{ " + ", ".join(parts) + " }"


def table_text(
    spec: TableSpec,
    *,
    notes: Sequence[str] = (),
    column_notes: Mapping[str, str] | None = None,
) -> str:
    """One table's sections; ``notes`` go above them as comments, ``column_notes`` at
    the end of their columns' lines."""
    lines = [comment(note) for note in notes]
    lines.append(f"[{spec.table}]")
    files = spec.files[0] if len(spec.files) == 1 else list(spec.files)
    lines.append(f"files = {value(files)}")
    if spec.format is not None:
        lines.append(f"format = {string(spec.format)}")
    if spec.delimiter is not None:
        lines.append(f"delimiter = {string(spec.delimiter)}")
    if spec.filter is not None:
        lines.append(f"filter = {string(spec.filter)}")
    if spec.columns:
        lines.append("")
        lines.append(f"[{spec.table}.columns]")
        for name, column in spec.columns:
            line = f"{key(name)} = {column_text(column)}"
            note = (column_notes or {}).get(name)
            lines.append(f"{line}  {comment(note)}" if note else line)
    return "\n".join(lines) + "\n"


def mapping_text(tables: Sequence[str], header: Sequence[str] = ()) -> str:
    """A whole file from its tables' texts, under a commented header."""
    head = "".join(f"{comment(line)}\n" if line else "#\n" for line in header)
    return head + ("\n" if head else "") + "\n".join(tables)
