"""How each :class:`~reconcile.engine.declare.Lookup` is built: a vectorized function
over Arrow arrays, made from a working table's rows, that DuckDB calls a chunk of
rows at a time.

A lookup is for a search SQL has no cheap operator for. The one there is,
``rc_instant_no``, gives a time its instant number (the first instant at or after
it): an ``ASOF`` join does that by sorting every row it is given (about 4.5 s per
10 M rows on two cores), a binary search in the instants' sorted times does it in
a small fraction of that (bench/RESULTS.md). The instants are a small table (one
row per won checkpoint write and epoch); the rows searched are many (one per step
of every partition's history).
"""

from __future__ import annotations

from collections.abc import Callable

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from reconcile.db import quote_identifier
from reconcile.errors import InternalError

Kernel = Callable[..., pa.Array]


def instant_numbers(cursor: duckdb.DuckDBPyConnection, table: str) -> Kernel:
    """``rc_instant_no(first, end, t)``: the number of the first instant at or after
    ``t`` among a scope's instants, numbers ``first`` to ``end - 1`` of ``table``
    (``rc_instants``: numbered scope by scope, in time order); ``end`` when none is;
    null when ``t`` is null."""
    rows = cursor.execute(
        f"SELECT idx, epoch_ns(t) FROM {quote_identifier(table)} ORDER BY idx"
    ).fetchnumpy()
    numbers = np.asarray(rows["idx"], dtype=np.int64)
    times = np.asarray(rows["epoch_ns(t)"], dtype=np.int64)
    if len(numbers) and not np.array_equal(numbers, np.arange(len(numbers))):
        raise InternalError(f"{table}: instant numbers are not 0, 1, 2, ...", step=table)

    def lookup(first: pa.Array, end: pa.Array, t: pa.Array) -> pa.Array:
        firsts = np.asarray(pc.fill_null(first, 0).to_numpy(zero_copy_only=False), np.int64)
        ends = np.asarray(pc.fill_null(end, 0).to_numpy(zero_copy_only=False), np.int64)
        values = pc.fill_null(t.cast(pa.int64()), 0).to_numpy(zero_copy_only=False)
        found = np.empty(len(values), dtype=np.int64)
        # a chunk's rows are of a few scopes (one, mostly): a search per scope
        for scope_first in np.unique(firsts):
            rows = firsts == scope_first
            scope_end = int(ends[rows].max())
            if not 0 <= scope_first <= scope_end <= len(times):
                raise InternalError(
                    f"{table}: no instants numbered {scope_first} to {scope_end - 1}",
                    step=table,
                )
            found[rows] = scope_first + np.searchsorted(
                times[scope_first:scope_end], values[rows], side="left"
            )
        missing = pc.or_(pc.or_(pc.is_null(first), pc.is_null(end)), pc.is_null(t))
        return pa.array(found, type=pa.int64(), mask=missing.to_numpy(zero_copy_only=False))

    return lookup


BUILDERS: dict[str, Callable[[duckdb.DuckDBPyConnection, str], Kernel]] = {
    "rc_instant_no": instant_numbers,
}
