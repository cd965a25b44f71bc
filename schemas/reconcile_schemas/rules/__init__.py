"""Rules of docs/contract.md §1 that span several rows or tables, as named SQL queries.

Each ``<name>.sql`` selects the offending rows from the normalized views of a log set
(one view per contract table, named after it, with ``__file`` and ``__row`` naming
where each row came from) and starts with a header of ``-- key: value`` lines:
``table`` and ``column`` the problem is reported against, ``requires`` the tables
that must be present for the rule to apply, ``reads`` (optional, default
``requires``) every table it reads, and ``message``. A query returns
``__rows`` (how many input rows an output row stands for), ``__file``, ``__row`` and
the columns a person needs to see; it may use the parameter ``$coordinate_type``.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources


@dataclass(frozen=True)
class Rule:
    """A multi-row or cross-table validity rule."""

    name: str
    table: str
    column: str
    requires: frozenset[str]
    reads: frozenset[str]
    message: str
    sql: str


def _parse(name: str, text: str) -> Rule:
    header: dict[str, str] = {}
    for line in text.splitlines():
        if not line.startswith("--"):
            break
        key, sep, value = line[2:].partition(":")
        if sep:
            header[key.strip()] = value.strip()
    missing = {"table", "column", "requires", "message"} - header.keys()
    if missing:
        raise ValueError(f"rule {name}.sql lacks header lines: {sorted(missing)}")
    return Rule(
        name=name,
        table=header["table"],
        column=header["column"],
        requires=frozenset(header["requires"].split()),
        reads=frozenset(header.get("reads", header["requires"]).split()),
        message=header["message"],
        sql=text,
    )


def load_rules() -> tuple[Rule, ...]:
    """Every rule shipped in this folder, in name order."""
    folder = resources.files(__name__)
    return tuple(
        _parse(entry.name.removesuffix(".sql"), entry.read_text(encoding="utf-8"))
        for entry in sorted(folder.iterdir(), key=lambda e: e.name)
        if entry.name.endswith(".sql")
    )
