"""Lazy re-exports for package ``__init__`` modules.

``import reconcile`` (and ``reconcile.cli``, to print ``--help``) must not load
DuckDB, Polars, PyArrow or NumPy: together they take most of a second. A package
names what it re-exports and from where; each is imported on first use (PEP 562).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def exports(package: str, names: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package`` that imports each of ``names`` (an
    attribute, by the module that defines it) when it is first asked for."""
    namespace = importlib.import_module(package).__dict__

    def __getattr__(name: str) -> Any:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    return __getattr__
