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


@cache
def load(name: str) -> str:
    """The text of ``sql/<name>.sql``."""
    path = resources.files(__name__).joinpath(*f"{name}.sql".split("/"))
    return path.read_text(encoding="utf-8")


def parameters(sql: str) -> set[str]:
    """The named parameters a query uses (``$as_of`` -> ``as_of``)."""
    return set(_PARAM.findall(re.sub(r"--[^\n]*", "", sql)))
