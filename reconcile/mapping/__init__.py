"""Reading users' own logs through a mapping file (TOML) onto the contract's tables.

* :func:`find_mapping` / :func:`load_mapping` read a mapping (a file the user names,
  or the log directory's own ``reconcile.toml`` when the user asks for it with
  ``auto``: a log set's mapping is never applied unasked), :func:`resolve_mapping`
  takes any of the forms the entry points accept;
* :mod:`reconcile.mapping.bind` checks it against the files and states each table
  as a DuckDB relation, which the loader registers as the table's view;
* :mod:`reconcile.mapping.discover` hands the bound tables to discovery as table
  sources (:mod:`reconcile.logset.sources`: the log set layer imports no mapping);
* :mod:`reconcile.mapping.suggest` writes a first mapping from the files' schemas.
"""

from __future__ import annotations

from pathlib import Path

from reconcile.mapping.spec import (
    AUTO,
    MAPPING_FILE,
    NONE,
    LogMapping,
    MappingError,
    find_mapping,
    load_mapping,
    parse_mapping,
)


def resolve_mapping(
    logset: str | Path, mapping: LogMapping | str | Path | None
) -> LogMapping | None:
    """A mapping given as an object, a file, ``"auto"`` (the log directory's own,
    trusted by the caller) or ``"none"``; nothing given reads the contract's layout,
    and is refused where the log directory brings a mapping of its own
    (:func:`~reconcile.mapping.spec.find_mapping`)."""
    if isinstance(mapping, LogMapping):
        return mapping
    return find_mapping(logset, mapping)


__all__ = [
    "AUTO",
    "MAPPING_FILE",
    "NONE",
    "LogMapping",
    "MappingError",
    "find_mapping",
    "load_mapping",
    "parse_mapping",
    "resolve_mapping",
]
