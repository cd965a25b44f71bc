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

    def search(first: int, end: int, values: np.ndarray) -> np.ndarray:
        if not 0 <= first <= end <= len(times):
            raise InternalError(f"{table}: no instants numbered {first} to {end - 1}", step=table)
        return first + np.searchsorted(times[first:end], values, side="left")

    def lookup(first: pa.Array, end: pa.Array, t: pa.Array) -> pa.Array:
        if not len(t):
            return pa.array([], type=pa.int64())
        nulls = first.null_count + end.null_count + t.null_count
        lowest, highest = pc.min_max(first).values()
        if not nulls and lowest == highest:
            # a chunk of one scope's rows, none null: the common case, one search
            start = lowest.as_py()
            values = t.cast(pa.int64()).to_numpy()
            return pa.array(search(start, pc.max(end).as_py(), values), type=pa.int64())
        firsts = pc.fill_null(first, 0).to_numpy(zero_copy_only=False)
        ends = pc.fill_null(end, 0).to_numpy(zero_copy_only=False)
        values = pc.fill_null(t.cast(pa.int64()), 0).to_numpy(zero_copy_only=False)
        found = np.zeros(len(values), dtype=np.int64)
        missing = pc.or_(pc.or_(pc.is_null(first), pc.is_null(end)), pc.is_null(t))
        present = ~missing.to_numpy(zero_copy_only=False)
        for scope_first in np.unique(firsts[present]):
            rows = present & (firsts == scope_first)
            found[rows] = search(int(scope_first), int(ends[rows].max()), values[rows])
        return pa.array(found, type=pa.int64(), mask=~present)

    return lookup


BUILDERS: dict[str, Callable[[duckdb.DuckDBPyConnection, str], Kernel]] = {
    "rc_instant_no": instant_numbers,
}
