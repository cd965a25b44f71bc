"""Compile the Pandera schemas into ``declared.json``, the form the engine reads.

Run ``uv run python -m reconcile_schemas.compile`` after changing
:mod:`reconcile_schemas.tables`; ``tests/test_declared.py`` fails until the file
matches the schemas again. See :mod:`reconcile_schemas.declared`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from reconcile_schemas.declared import DECLARED_FILE
from reconcile_schemas.tables import PANDERA_TABLES
from reconcile_schemas.types import CoordinateType


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    raise TypeError(f"cannot compile {value!r} into JSON")


def _check(check: Any) -> dict[str, Any]:
    return {
        "name": str(check.name),
        "error": str(check.error),
        "statistics": _plain(dict(check.statistics or {})),
    }


def compile_declarations() -> dict[str, Any]:
    """What the engine reads of every Pandera schema, as JSON data. A schema's
    declaration is the same for both coordinate types but for the columns' Polars
    types, which follow from their logical types (``metadata['logical']``)."""
    tables: dict[str, Any] = {}
    for name, factory in PANDERA_TABLES.items():
        schema = factory(CoordinateType.INT64)
        unique = [schema.unique] if isinstance(schema.unique, str) else schema.unique
        tables[name] = {
            "columns": {
                column: {
                    "nullable": bool(spec.nullable),
                    "checks": [_check(c) for c in spec.checks],
                    "metadata": _plain(dict(spec.metadata or {})),
                }
                for column, spec in schema.columns.items()
            },
            "checks": [_check(c) for c in schema.checks],
            "unique": None if unique is None else _plain(unique),
            "metadata": _plain(dict(schema.metadata or {})),
        }
    return {"tables": tables}


def render() -> str:
    """The text of ``declared.json``."""
    return json.dumps(compile_declarations(), indent=1) + "\n"


def main() -> int:
    target = Path(__file__).with_name(DECLARED_FILE)
    target.write_text(render(), encoding="utf-8")
    print(f"wrote {target}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
