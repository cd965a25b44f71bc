"""Matching a user's names to the contract's: columns, tables and enumeration values.

Pure functions over names (no data read): normalized words with abbreviations spelled
out, known synonyms, and a similarity from 0 to 1; the values' known spellings.
"""

from __future__ import annotations

import difflib
import re

from reconcile_schemas import ROW_TIME, TABLES, table_schema

# a user's column is taken for a contract column from this similarity on
MIN_SCORE = 0.6
# the epoch unit the last word of a column's name says (ts_ms: epoch_ms)
EPOCH_SUFFIXES = {
    "s": "epoch_s",
    "sec": "epoch_s",
    "secs": "epoch_s",
    "seconds": "epoch_s",
    "ms": "epoch_ms",
    "millis": "epoch_ms",
    "us": "epoch_us",
    "micros": "epoch_us",
    "ns": "epoch_ns",
    "nanos": "epoch_ns",
}
# Other names users give the contract's columns (normalized: lower case, words
# joined by "_").
SYNONYMS: dict[str, tuple[str, ...]] = {
    "scope_id": ("stream", "stream_id", "scope", "stream_name", "source", "source_id"),
    "partition_id": ("shard", "shard_id", "partition", "part", "partition_key", "split"),
    "attempt_id": ("run", "run_id", "attempt", "worker_run", "worker_run_id", "job_run_id"),
    "expected_generation": ("prev_gen", "prev_generation", "previous_generation", "expected"),
    "owner_epoch": ("lease_epoch", "lease", "fencing_token", "owner_generation", "lease_id"),
    "cas_result": ("cas", "cas_status", "cas_outcome", "result", "write_result"),
    "position": ("seq", "sequence", "seq_no", "sequence_number", "offset", "pos", "sort_key"),
    "outcome": ("status", "result", "disposition", "state"),
    "event_count": ("count", "events", "n_events", "num_events", "size", "page_size"),
    "resume_token": ("token", "cursor", "resume_cursor"),
    "request_token": ("request_cursor", "page_token", "token_in"),
    "next_token": ("next_cursor", "next_page_token", "token_out"),
    "watermark": ("high_watermark", "hwm", "checkpoint"),
}
# Abbreviations of words in column names.
WORDS = {
    "pos": "position",
    "gen": "generation",
    "evt": "event",
    "ev": "event",
    "wm": "watermark",
    "seq": "sequence",
    "incl": "inclusive",
    "cnt": "count",
    "num": "count",
    "n": "count",
    "part": "partition",
    "req": "request",
    "tok": "token",
    "ts": "time",
    "eff": "effective",
}
# Words that say how a value is stored rather than what it is.
WEAK = frozenset({"at", "id", "ms", "us", "ns", "s", "sec", "epoch", "time", "millis", "micros"})
# Known spellings of the enumerations' values.
VALUE_WORDS: dict[str, dict[str, tuple[str, ...]]] = {
    "outcome": {
        "committed": ("ok", "success", "succeeded", "done", "commit", "acked", "ack", "stored"),
        "failed": ("err", "error", "fail", "failure", "nack", "retry"),
        "dead_lettered": ("dlq", "dead", "dead_letter", "deadletter", "dl", "dead_lettered"),
        "ineligible": ("skip", "skipped", "filtered", "excluded", "ignored"),
    },
    "cas_result": {
        "won": ("ok", "win", "success", "applied", "succeeded", "true"),
        "lost": ("conflict", "lose", "fail", "failed", "rejected", "stale", "false"),
    },
    "role": {"member": ("active", "owner"), "retiring": ("retired", "leaving", "draining")},
    "domain": {"discrete": ("int", "integer"), "dense": ("time", "continuous")},
    "kind": {"scalar": ("single", "min"), "vector": ("per_partition", "map")},
}


def words(name: str) -> tuple[str, ...]:
    """A column name's words: lower case, camelCase and punctuation split, known
    abbreviations spelled out, plurals made singular."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    found = []
    for part in re.split(r"[^A-Za-z0-9]+", spaced.lower()):
        if not part:
            continue
        word = WORDS.get(part, part)
        if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        found.append(word)
    return tuple(found)


def similarity(contract: str, column: str) -> float:
    """How much a user's column name looks like a contract column's (0 to 1)."""
    norm = "_".join(re.split(r"[^a-z0-9]+", column.lower())).strip("_")
    if norm == contract:
        return 1.0
    if norm in SYNONYMS.get(contract, ()):
        return 0.95
    ours, theirs = words(contract), words(column)
    if ours == theirs:
        return 0.92
    strong_ours = set(ours) - WEAK
    strong_theirs = set(theirs) - WEAK
    if strong_ours and strong_ours == strong_theirs:
        return 0.9
    if strong_theirs and strong_theirs < strong_ours:
        return 0.5 + 0.3 * len(strong_theirs) / len(strong_ours)
    return 0.8 * difflib.SequenceMatcher(None, contract, norm).ratio() - 0.1


def match_columns(
    table: str, columns: dict[str, str], used_only: set[str] | None = None
) -> dict[str, tuple[str, float]]:
    """Each contract column's best user column, one user column each, best first."""
    candidates = [c for c in columns if used_only is None or c in used_only]
    pairs = sorted(
        (
            (similarity(name, column), name, column)
            for name in table_schema(table).columns
            for column in candidates
        ),
        key=lambda p: -p[0],
    )
    chosen: dict[str, tuple[str, float]] = {}
    taken: set[str] = set()
    for score, name, column in pairs:
        if score < MIN_SCORE or name in chosen or column in taken:
            continue
        chosen[name] = (column, score)
        taken.add(column)
    time_column = ROW_TIME.get(table)
    if time_column is not None and time_column not in chosen:
        # the one timestamp of a row: the user's one time-like column left over
        timely = [
            c
            for c in candidates
            if c not in taken
            and (columns[c].startswith("TIMESTAMP") or set(words(c)) & {"time", "ms", "us", "ns"})
        ]
        if len(timely) == 1:
            chosen[time_column] = (timely[0], 0.6)
    return chosen


def table_score(table: str, matched: dict[str, tuple[str, float]]) -> float:
    schema = table_schema(table).columns
    required = [n for n, c in schema.items() if not c.nullable]
    optional = [n for n in schema if n not in required]
    got = sum(matched[n][1] for n in required if n in matched)
    extra = sum(matched[n][1] for n in optional if n in matched)
    return got / max(len(required), 1) + 0.05 * extra


def epoch_named(column: str) -> str | None:
    """The epoch unit a column's name ends in (``ts_ms``: epoch_ms), if any."""
    raw_tail = re.split(r"[^a-z0-9]+", column.lower())[-1]
    found = words(column)
    return EPOCH_SUFFIXES.get(raw_tail) or (EPOCH_SUFFIXES.get(found[-1]) if found else None)


def table_named(value: str) -> str | None:
    norm = re.sub(r"[^a-z0-9]+", "_", value.lower()).strip("_")
    for table in TABLES:
        singular = table.removesuffix("s")
        if norm in (table, singular) or norm.replace("_", "") in (table, singular):
            return table
    return None


def allowed_values(table: str, column: str) -> tuple[str, ...]:
    """An enumeration's values (empty for a column that is not one)."""
    for check in table_schema(table).columns[column].checks:
        if check.name == "isin":
            return tuple(check.statistics["allowed_values"])
    return ()


def guess_value(contract: str, value: str, allowed: tuple[str, ...]) -> str | None:
    norm = re.sub(r"[^a-z0-9]+", "_", value.lower()).strip("_")
    if norm in allowed:
        return norm
    for target, spellings in VALUE_WORDS.get(contract, {}).items():
        if norm in spellings and target in allowed:
            return target
    # no guess by likeness: UNCOMMITTED is as close to committed as COMMITED is, and
    # a value map that reads a failure as durable makes the audit overclaim
    return None


_TRUE = frozenset({"true", "t", "yes", "y", "1", "on", "stable", "eligible"})
_FALSE = frozenset({"false", "f", "no", "n", "0", "off", "unstable", "ineligible"})


def guess_truth(value: str) -> bool | None:
    """A text's truth value where it is a known spelling of one (None: unknown)."""
    norm = value.strip().lower()
    return True if norm in _TRUE else False if norm in _FALSE else None
