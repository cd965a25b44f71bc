"""A log set's discovery with its mapping: the one way in for the entry points.

Discovery and the loader do not know mappings (issue 18): the mapping is found and
bound here, and its tables handed to :func:`reconcile.logset.discover.discover` as
table sources, so that the dependency runs one way, from the mapping to the log set.
"""

from __future__ import annotations

from pathlib import Path

from reconcile.logset.discover import LogSetFiles, discover, logset_root
from reconcile.mapping import LogMapping, resolve_mapping
from reconcile.mapping.bind import bind


def discover_with_mapping(
    path: str | Path, mapping: LogMapping | str | Path | None = None
) -> LogSetFiles:
    """Find a log set's tables, those of its mapping (an object, a file, ``"auto"``
    for the log directory's own ``reconcile.toml``, or ``"none"``; nothing given is
    the contract's layout, refused where the log directory brings a mapping) read
    through it.

    Raises :class:`~reconcile.errors.InputError` when the directory does not exist or
    is not a directory, and :class:`~reconcile.mapping.spec.MappingError` when the
    mapping cannot be read or does not fit the files.
    """
    chosen = resolve_mapping(path, mapping)
    if chosen is None:
        return discover(path)
    root = logset_root(path)
    return discover(root, bind(chosen, root).values(), chosen.path)
