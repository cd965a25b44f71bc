"""How each :class:`~reconcile.engine.declare.Lookup` is built: a vectorized function
over Arrow arrays, made from a working table's rows, that DuckDB calls a chunk of
rows at a time.

A lookup is for a search SQL has no cheap operator for. All there are give a time
the number of the first row at or after it in a numbered, time-ordered table:

* ``rc_instant_no``, in the instants of the frontier's history (``rc_instants``,
  scope by scope): an ``ASOF`` join does that by sorting every row it is given
  (about 4.5 s per 10 M rows on two cores), a binary search in the instants' sorted
  times in a fraction of that (bench/RESULTS.md);
* ``rc_reach_no``, in each partition's running highest claim (``rc_late_reach``),
  so that rule late_insert finds the claim in force when each snapshot event
  appeared without sorting every event;
* ``rc_instant_span``, the same for an interval's two ends at once (``STRUCT(lo,
  hi)``), in one call where two lookups would make two: DuckDB's fixed price of
  calling Python (about 160 microseconds a chunk of 2,048 rows, measured in
  bench/EVENT_LEVEL.md) is most of a search's cost;
* ``rc_point_span``, an interval's two ends in the instants of a set of points of
  the exact evaluator (partition by partition), so that a segment tree gives each
  point the least event blocker in force, where joining every point with every
  blocker of its partition costs their product.

The tables searched are small next to the rows looked up (one per step of every
partition's history, one per event blocker, one per snapshot event).

Every lookup is such a function, whatever the size of the log set: the path the
large runs take is the one every test takes. (A SQL macro for small log sets, a
correlated subquery, was kept until 2026-12-07; it cost the same on data/faults once
the functions stopped loading pandas, bench/EVENT_LEVEL.md.)

A search's answer is an Arrow array made from its NumPy buffers
(:func:`_int64_array`): ``pa.array`` of a NumPy array imports pandas on its first
call, a quarter of a second per process (tests/test_startup.py).
"""

from __future__ import annotations

from collections.abc import Callable

import duckdb
import numpy as np
import pyarrow as pa

from reconcile.db import quote_identifier
from reconcile.engine.declare import Lookup
from reconcile.errors import InternalError

Kernel = Callable[..., pa.Array]


# Arrow arrays read as NumPy from their buffers: Array.to_numpy would load pandas
# (a quarter of a second, once per process).
def _int64s(array: pa.Array) -> np.ndarray:
    """The values of an int64 or timestamp array (whatever lies under a null)."""
    data = array.buffers()[1]
    if data is None:
        return np.zeros(len(array), dtype=np.int64)
    return np.frombuffer(data, dtype=np.int64, count=len(array), offset=array.offset * 8)


def _int64_array(values: np.ndarray, valid: np.ndarray | None = None) -> pa.Array:
    """An int64 array of ``values``, null where ``valid`` is false, built on their
    buffers: ``pa.array`` of a NumPy array would import pandas."""
    data = pa.py_buffer(np.ascontiguousarray(values, dtype=np.int64))
    if valid is None or valid.all():
        return pa.Array.from_buffers(pa.int64(), len(values), [None, data], null_count=0)
    bitmap = pa.py_buffer(np.packbits(valid, bitorder="little"))
    nulls = int(len(valid) - np.count_nonzero(valid))
    return pa.Array.from_buffers(pa.int64(), len(values), [bitmap, data], null_count=nulls)


def _valid(array: pa.Array) -> np.ndarray:
    """Where the array holds a value."""
    bitmap = array.buffers()[0]
    if bitmap is None or not array.null_count:
        return np.ones(len(array), dtype=bool)
    bits = np.unpackbits(np.frombuffer(bitmap, dtype=np.uint8), bitorder="little")
    return bits[array.offset : array.offset + len(array)].astype(bool)


def instant_numbers(cursor: duckdb.DuckDBPyConnection, lookup: Lookup) -> Kernel:
    """``(first, end, t)``: the number of the first row at or after time ``t`` among
    the rows numbered ``first`` to ``end - 1`` of the lookup's table (columns ``idx``
    and ``t``: numbered 0, 1, 2, ... run by run of its ``groups``, in time order
    within a run), ``first`` to ``end - 1`` being one whole run; ``end``
    when none is; null when an argument is null.

    A chunk of one run's rows is one binary search in that run's times. A chunk of
    many runs is one search in keys that order the whole table: a row's run, then
    its time's rank among all the table's times."""
    table = lookup.table
    runs = ", ".join(quote_identifier(c) for c in lookup.groups) or "NULL"
    rows = cursor.execute(
        f"SELECT idx, epoch_ns(t) AS t, dense_rank() OVER (ORDER BY {runs}) - 1 AS run"
        f" FROM {quote_identifier(table)} ORDER BY idx"
    ).fetchnumpy()
    numbers = np.asarray(rows["idx"], dtype=np.int64)
    times = np.asarray(rows["t"], dtype=np.int64)
    run_of = np.asarray(rows["run"], dtype=np.int64)
    count = len(numbers)
    if count and not np.array_equal(numbers, np.arange(count)):
        raise InternalError(f"{table}: numbers are not 0, 1, 2, ...", step=table)
    distinct = np.unique(times)
    width = len(distinct) + 1
    if (
        count
        and (
            (run_of[1:] < run_of[:-1]).any()
            # compared, not subtracted: the dawn sentinel is far from any time
            or ((times[1:] < times[:-1]) & (run_of[1:] == run_of[:-1])).any()
            or int(run_of[-1]) + 1 >= np.iinfo(np.int64).max // width
        )
    ):
        raise InternalError(f"{table}: not numbered run by run in time order", step=table)
    keys = run_of * width + np.searchsorted(distinct, times, side="left")
    # each run's first number and the number past its last
    run_first = np.searchsorted(run_of, np.arange(int(run_of[-1]) + 1 if count else 0))
    run_end = np.append(run_first[1:], count).astype(np.int64)

    def not_runs(starts: np.ndarray, stops: np.ndarray) -> bool:
        runs = run_of[starts]
        return bool(((run_first[runs] != starts) | (run_end[runs] != stops)).any())

    def search(first: pa.Array, end: pa.Array, t: pa.Array) -> pa.Array:
        if not len(t):
            return _int64_array(np.zeros(0, dtype=np.int64))
        first, end, t = (
            a.combine_chunks() if isinstance(a, pa.ChunkedArray) else a for a in (first, end, t)
        )
        starts, stops, values = _int64s(first), _int64s(end), _int64s(t)
        present = _valid(first) & _valid(end) & _valid(t)
        if present.all() and starts[0] == starts.min() == starts.max():
            # one run's rows, none null (the common case)
            start, stop = int(starts[0]), int(stops.max())
            if not 0 <= start < count or not_runs(np.array([start]), np.array([stop])):
                raise InternalError(f"{table}: a range of rows that is not one run", step=table)
            found = start + np.searchsorted(times[start:stop], values, side="left")
            return _int64_array(found)
        starts = np.where(present, starts, 0)
        stops = np.where(present, stops, 0)
        outside = (starts < 0) | (starts > stops) | (stops > count)
        if (outside | (present & (starts >= count))).any():
            raise InternalError(f"{table}: a range of rows outside its numbers", step=table)
        if not count:
            return _int64_array(starts, present)
        if not_runs(starts[present], stops[present]):
            raise InternalError(f"{table}: a range of rows that is not one run", step=table)
        wanted = run_of[np.minimum(starts, count - 1)] * width + np.searchsorted(
            distinct, values, side="left"
        )
        found = np.searchsorted(keys, wanted, side="left")
        return _int64_array(np.where(present, found, 0), present)

    return search


def instant_spans(cursor: duckdb.DuckDBPyConnection, lookup: Lookup) -> Kernel:
    """``(first, end, t1, t2)``: what :func:`instant_numbers` gives for ``t1`` and for
    ``t2``, as ``STRUCT(lo, hi)``, in one call."""
    number = instant_numbers(cursor, lookup)

    def search(first: pa.Array, end: pa.Array, t1: pa.Array, t2: pa.Array) -> pa.Array:
        return pa.StructArray.from_arrays(
            [number(first, end, t1), number(first, end, t2)], names=["lo", "hi"]
        )

    return search


BUILDERS: dict[str, Callable[[duckdb.DuckDBPyConnection, Lookup], Kernel]] = {
    "rc_instant_no": instant_numbers,
    # the same search in a partition's running highest claim (rule late_insert)
    "rc_reach_no": instant_numbers,
    # an interval's two ends at once; in a set of points' instants, numbered
    # partition by partition
    "rc_instant_span": instant_spans,
    "rc_point_span": instant_spans,
}
