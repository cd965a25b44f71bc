"""Named SQL queries of the engine, one ``.sql`` file each.

A query is loaded by its path (``load("watermarks/known_events")``). Queries read
the log set's normalized views (one per contract table) and the engine's working
tables (``rc_*``), take their parameters as DuckDB named parameters (``$as_of``),
and quote nothing from users: every identifier is the contract's or the engine's.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

_PARAM = re.compile(r"\$([a-z_][a-z0-9_]*)")
# A query's name: a folder of sql/ and a file in it, nothing else
_NAME = re.compile(r"[a-z_]+/[a-z0-9_]+")


def exists(name: str) -> bool:
    """Whether ``name`` is a named query (``sql/<name>.sql``): a path anywhere else,
    ``../x`` among them, is none."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        return False
    return resources.files(__name__).joinpath(*f"{name}.sql".split("/")).is_file()


@cache
def load(name: str) -> str:
    """The text of ``sql/<name>.sql``."""
    path = resources.files(__name__).joinpath(*f"{name}.sql".split("/"))
    return path.read_text(encoding="utf-8")


def parameters(sql: str) -> set[str]:
    """The named parameters a query uses (``$as_of`` -> ``as_of``)."""
    return set(_PARAM.findall(re.sub(r"--[^\n]*", "", sql)))
