"""Checkpoints written without compare-and-swap: many systems (dlt, Airbyte, Singer)
simply overwrite their state. A checkpoints file that lacks all four of
``owner_epoch``, ``expected_generation``, ``generation`` and ``cas_result``
(:data:`~reconcile_schemas.names.CAS_COLUMNS`) holds such writes: every one wins, in
``written_at`` order, and its generation is its rank (``sql/logset/overwrite.sql``).
The checkpoints view marks each row's kind in ``__overwrite``; the rules that need
compare-and-swap do not apply to a scope of such rows (``report/not_applicable``).
A file with some of the four and not the others is refused by validation
(:mod:`reconcile.validate.structure`).
"""

from __future__ import annotations

from collections.abc import Sequence

import duckdb

from reconcile import sql
from reconcile.db import quote_literal
from reconcile.logset.file_schemas import FileSchema
from reconcile_schemas.names import CAS_COLUMNS

OVERWRITE_COLUMN = "__overwrite"


def without_cas(file: FileSchema) -> bool:
    """Whether a checkpoints file holds writes without compare-and-swap: it has none
    of the four columns."""
    return not any(name in file.columns for name in CAS_COLUMNS)


def checkpoints_relation(
    con: duckdb.DuckDBPyConnection,
    relation: duckdb.DuckDBPyRelation,
    files: Sequence[FileSchema],
    *,
    mapped: bool,
) -> duckdb.DuckDBPyRelation:
    """The normalized checkpoints with ``__overwrite``, and, where some files hold
    writes without compare-and-swap, their four columns made as such writes have
    them. A log set whose files all have the columns reads as before."""
    free = [str(f.path) for f in files if without_cas(f)]
    if not free:
        return relation.select(f"*, false AS {OVERWRITE_COLUMN}")
    if mapped:
        # a mapping reads every file alike: all of them lack the columns
        flag = "true"
    else:
        listed = ", ".join(quote_literal(path) for path in free)
        flag = f"__file IN ({listed})"
    relation.select(f"*, {flag} AS {OVERWRITE_COLUMN}").create_view(
        "rc_checkpoints_read", replace=True
    )
    return con.sql(sql.load("logset/overwrite"))
