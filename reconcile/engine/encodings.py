"""The encodings the engine's tables share, declared once.

Queries build these values as DuckDB structs because a struct compares field by
field, in order: the order of the fields is the order the contract asks for, so
``min``, ``max``, ``<`` and ``arg_min`` work on them directly. The declarations of
:mod:`reconcile.engine.steps` name them (``CERT``, ``BLOCK``, ...) instead of spelling
them out; :func:`resolve` turns a declared type into DuckDB's spelling for a log set.

* ``COORD``: a coordinate, ``BIGINT`` or ``TIMESTAMP_NS`` (one type per log set).
* ``CERT`` ``{v, i}``: a complete-through certificate (docs/contract.md §2). ``v`` the
  normalized through, ``i`` 1 inclusive / 0 exclusive. Normalized: on a discrete
  domain an exclusive ``v`` is stated as the inclusive ``v - 1`` (macro
  ``rc_cert``), so struct order is certificate order. NULL stands for ``+inf`` in
  "lower of" and "min" computations, and is never a certificate by itself.
* ``BLOCK`` ``{p, k, e, s}``: a place in a partition's event order (§4.6, §4.7),
  sortable: ``p`` the position; ``k`` 0 before every event at ``p``, 1 at an event;
  ``e`` the event id (``''`` with ``k = 0``); ``s`` 0 at the event itself, 1 right
  after it (an incomplete page blocks right after its last event with a receipt).
  The blocking point is the least ``BLOCK`` of a partition's blocking event and
  page blocks; an event ``{p, 1, e, 0}`` is before it when it compares lower.
* ``EVENT`` ``{p, e}``: an event's place, ``(position, event_id)``.
* ``CLAIM`` ``{watermark, inclusive, generation, ordering, event_id}``: the latest
  won write's claim as written (§4.11).
* ``FLAGS`` (``UTINYINT``): what an event's receipts counted at T say, as bits
  (macro ``rc_outcome_bits``): 1 a durable outcome, 2 a failed one, 4 an ineligible
  one, 8 an ineligible one with ``eligibility_stable``, 16 two durable receipts or
  more, 32 seen at two positions or more, 64 an ineligible one without
  ``eligibility_stable``.
* ``PK`` (``UBIGINT``): a partition's key, ``hash(scope_id, partition_id)`` (macro
  ``rc_pk``), checked unique per log set (guard ``partition_keys``), so that the
  event-level tables carry one integer, not two strings.
"""

from __future__ import annotations

import re

from reconcile_schemas import CoordinateType

# name -> definition; definitions may use the names defined above them
ENCODINGS: dict[str, str] = {
    "CERT": "STRUCT(v COORD, i INTEGER)",
    "BLOCK": "STRUCT(p COORD, k INTEGER, e VARCHAR, s INTEGER)",
    "EVENT": "STRUCT(p COORD, e VARCHAR)",
    "CLAIM": (
        "STRUCT(watermark COORD, inclusive BOOLEAN, generation BIGINT, ordering VARCHAR,"
        " event_id VARCHAR)"
    ),
    "FLAGS": "UTINYINT",
    "PK": "UBIGINT",
}

_COORDINATE = {CoordinateType.INT64: "BIGINT", CoordinateType.TIMESTAMP: "TIMESTAMP_NS"}
_NAME = re.compile(r"\b(COORD|" + "|".join(ENCODINGS) + r")\b")


def resolve(declared: str, coordinate: CoordinateType) -> str:
    """A declared column type in DuckDB's spelling for a log set of ``coordinate``."""

    def expand(match: re.Match[str]) -> str:
        name = match.group(1)
        if name == "COORD":
            return _COORDINATE[coordinate]
        return resolve(ENCODINGS[name], coordinate)

    return _NAME.sub(expand, declared)
