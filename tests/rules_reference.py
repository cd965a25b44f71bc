"""A deliberately plain pure-Python reading of docs/contract.md §5, kept in the tests:
the audit rules about checkpoint writes, events, epochs and publications, each a loop
over small lists of dicts, transcribed from the rule's sentence. Each returns the
rule's keys (§5: the fields that identify one finding), with the scope.

The certificates and the state of a partition at an instant come from
``tests/reference.py`` (§4). Readings, where the contract leaves room, are the
engine's documented ones (docs/contract.md §8): a won write's place among its
partition's is (written_at, generation, attempt_id); an unknown endpoint reads as
inclusive; a claim in another ordering than its scope's is compared with nothing.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

from tests import reference
from tests.reference import Row, Tables

Key = tuple[Any, ...]


def _won(tables: Tables, T: Any) -> dict[tuple[str, str], list[Row]]:
    """Each partition's won writes up to T, in their order."""
    out: dict[tuple[str, str], list[Row]] = {}
    for row in tables.get("checkpoints", ()):
        if row["cas_result"] == "won" and row["written_at"] <= T:
            out.setdefault((row["scope_id"], row["partition_id"]), []).append(row)
    domains = reference.scopes(tables)
    for (scope, _), writes in out.items():
        discrete = domains[scope]["domain"] == "discrete"
        writes.sort(key=lambda r, d=discrete: reference.write_order(r, d))
    return out


def _write_key(row: Row) -> Key:
    return (row["scope_id"], row["partition_id"], row["attempt_id"], row["generation"])


def _claim(row: Row) -> Any:
    if row.get("watermark") is None:
        return None
    return (row["watermark"], row.get("watermark_inclusive"))


def _comparable(tables: Tables, row: Row) -> bool:
    ordering = reference.scopes(tables)[row["scope_id"]]["ordering"]
    return row.get("ordering") is None or row["ordering"] == ordering


def _discrete(tables: Tables, scope: str) -> bool:
    return reference.scopes(tables)[scope]["domain"] == "discrete"


def cas_chain_broken(tables: Tables, T: Any) -> set[Key]:
    """A won write's expected_generation differs from the generation of the
    partition's previous won write, 0 before the first."""
    found = set()
    for writes in _won(tables, T).values():
        previous = 0
        for row in writes:
            if row["expected_generation"] != previous:
                found.add(_write_key(row))
            previous = row["generation"]
    return found


def stale_owner_won(tables: Tables, T: Any) -> set[Key]:
    """A won write's owner_epoch is below that of an earlier won write."""
    found = set()
    for writes in _won(tables, T).values():
        for i, row in enumerate(writes):
            if any(row["owner_epoch"] < earlier["owner_epoch"] for earlier in writes[:i]):
                found.add(_write_key(row))
    return found


def watermark_regressed(tables: Tables, T: Any) -> set[Key]:
    """A won write's claim is below the latest earlier won claim of the partition."""
    found = set()
    for (scope, _), writes in _won(tables, T).items():
        discrete = _discrete(tables, scope)
        latest = None
        for row in writes:
            claim = _claim(row) if _comparable(tables, row) else None
            if claim is None:
                continue
            if latest is not None and reference.above(latest, claim, discrete):
                found.add(_write_key(row))
            latest = claim
    return found


def unknown_endpoint(tables: Tables, T: Any) -> set[Key]:
    """A won claim has watermark_inclusive null."""
    return {
        _write_key(row)
        for writes in _won(tables, T).values()
        for row in writes
        if row.get("watermark") is not None and row.get("watermark_inclusive") is None
    }


def mixed_checkpoint(tables: Tables, T: Any) -> set[Key]:
    """(With pages) a won write's non-null resume_token is not the next_token of a page
    of its partition fetched by the same attempt at or before written_at."""
    if "pages" not in tables:
        return set()
    found = set()
    for (scope, partition), writes in _won(tables, T).items():
        for row in writes:
            token = row.get("resume_token")
            if token is None:
                continue
            handed = any(
                page["scope_id"] == scope
                and page["partition_id"] == partition
                and page["attempt_id"] == row["attempt_id"]
                and page.get("next_token") == token
                and page["fetched_at"] <= row["written_at"]
                for page in tables["pages"]
            )
            if not handed:
                found.add(_write_key(row))
    return found


def _overclaims(tables: Tables, T: Any) -> list[tuple[Row, dict[str, Any]]]:
    """Each won write whose claim is above the partition's refutation bound (§4.10) at
    its written_at, with the partition's state then."""
    found = []
    for (scope, partition), writes in _won(tables, T).items():
        discrete = _discrete(tables, scope)
        for row in writes:
            claim = _claim(row)
            if claim is None or not _comparable(tables, row):
                continue
            then = reference.partition_state(tables, scope, partition, row["written_at"])
            if reference.above(claim, then["refutation_cert"], discrete):
                found.append((row, then))
    return found


def overclaim(tables: Tables, T: Any) -> set[Key]:
    """A won write's claim is above the partition's refutation bound (§4.10) at its
    written_at."""
    return {_write_key(row) for row, _ in _overclaims(tables, T)}


def overclaim_causes(tables: Tables, T: Any) -> dict[Key, str]:
    """Each overclaim's evidence.cause, the first that applies: ``token``
    (token_as_watermark fires for it), ``empty_page`` (it closes an empty page without
    finality), ``past_blocking_event`` (the claim is above the consumer certificate),
    ``observed_max`` (the claim, as a certificate, is the highest known position at
    written_at inclusive: docs/contract.md §8), else ``unknown``. Only keys that one
    won write holds: of two writes with one key, which finding is kept is the
    engine's tie-break (§8), not the rule's."""
    tokens = token_as_watermark(tables, T)
    held: dict[Key, int] = {}
    for writes in _won(tables, T).values():
        for row in writes:
            held[_write_key(row)] = held.get(_write_key(row), 0) + 1
    causes = {}
    for row, then in _overclaims(tables, T):
        key = _write_key(row)
        claim, discrete = _claim(row), then["discrete"]
        page = _page(tables, row, T)
        consumer = then["consumer_cert"]
        positions = [event.position for event in then["events"].values()]
        if key in tokens:
            cause = "token"
        elif page is not None and page["event_count"] == 0 and page["finality_through"] is None:
            cause = "empty_page"
        elif reference.above(claim, consumer, discrete):
            cause = "past_blocking_event"
        elif positions and reference.cert_key(claim, discrete) == reference.cert_key(
            (max(positions), True), discrete
        ):
            cause = "observed_max"
        else:
            cause = "unknown"
        if held[key] == 1:
            causes[key] = cause
    return causes


def _page(tables: Tables, row: Row, T: Any) -> Row | None:
    """The page a write names (same scope and page_id), where fetched by T."""
    for page in tables.get("pages", ()):
        if (
            page["scope_id"] == row["scope_id"]
            and page["page_id"] == row.get("page_id")
            and page["fetched_at"] <= T
        ):
            return page
    return None


_RFC3339 = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,6})?([Zz]|[+-]\d{2}:\d{2})"
)


def _token_value(token: str | None, integer: bool) -> Any:
    """A token read as a coordinate: int64, an optional - and decimal digits, nothing
    else; timestamp, an RFC 3339 date-time with Z or an offset (as UTC)."""
    if token is None:
        return None
    if integer:
        if re.fullmatch(r"-?[0-9]+", token) and -(2**63) <= int(token) < 2**63:
            return int(token)
        return None
    match = _RFC3339.fullmatch(token)
    if match is None:
        return None
    zone = match.group(8).upper()
    text = match.group(0)[: -len(zone)] + ("+00:00" if zone == "Z" else zone)
    return datetime.fromisoformat(text).astimezone(UTC).replace(tzinfo=None)


def token_as_watermark(tables: Tables, T: Any) -> set[Key]:
    """A won write's watermark equals its resume_token or its page's next_token read as
    a coordinate."""
    integer = reference.coordinate_is_int(tables)
    found = set()
    for writes in _won(tables, T).values():
        for row in writes:
            if row.get("watermark") is None:
                continue
            page = _page(tables, row, T)
            tokens = [row.get("resume_token"), page.get("next_token") if page else None]
            if any(_token_value(t, integer) == row["watermark"] for t in tokens if t):
                found.add(_write_key(row))
    return found


def empty_page_advanced(tables: Tables, T: Any) -> set[Key]:
    """A won write closing an empty page that has no finality_through raised the
    partition's claim (above the latest earlier won claim, or from none: the claim in
    force just before it, none after a null watermark) to above its proven
    certificate at written_at (or without one)."""
    found = set()
    for (scope, partition), writes in _won(tables, T).items():
        discrete = _discrete(tables, scope)
        before = None
        for row in writes:
            claim = _claim(row)
            comparable = _comparable(tables, row)
            page = _page(tables, row, T)
            if (
                claim is not None
                and comparable
                and page is not None
                and page["event_count"] == 0
                and page.get("finality_through") is None
                and (before is None or reference.above(claim, before, discrete))
            ):
                then = reference.partition_state(tables, scope, partition, row["written_at"])
                proven = then["proven_cert"]
                if proven is None or reference.above(claim, proven, discrete):
                    found.add(_write_key(row))
            if claim is None or comparable:
                before = claim
    return found


def ordering_mutated(tables: Tables, T: Any) -> set[Key]:
    """An event_id appears at two different positions (its known sightings at T)."""
    found = set()
    for scope, partition in reference.partitions(tables):
        state = reference.partition_state(tables, scope, partition, T)
        found |= {(scope, partition, e) for e, ev in state["events"].items() if ev.mutated}
    return found


def replayed_events(tables: Tables, T: Any) -> set[Key]:
    """A partition has known events with more than one durable receipt: one finding."""
    found = set()
    for scope, partition in reference.partitions(tables):
        state = reference.partition_state(tables, scope, partition, T)
        if any(ev.durable > 1 for ev in state["events"].values()):
            found.add((scope, partition))
    return found


def skipped_event(tables: Tables, T: Any) -> set[Key]:
    """At T an eligible known event with no durable outcome lies under the partition's
    claimed certificate at T."""
    found = set()
    for scope, partition in reference.partitions(tables):
        state = reference.partition_state(tables, scope, partition, T)
        claim = state["claim_cert"]
        if claim is None or state["claim_status"] == "incomparable":
            continue
        for event_id, ev in state["events"].items():
            under = not reference.above((ev.position, True), claim, state["discrete"])
            if ev.eligible and not ev.durable and under:
                found.add((scope, partition, event_id))
    return found


def unproven_membership(tables: Tables, T: Any) -> set[Key]:
    """At T a membership change (of that partition, at that epoch) still lacks its
    proof (§4.13), counting only epochs with effective_at <= T: the change's epoch is
    in effect by T and no epoch in effect by T proves it."""
    found = set()
    for scope in reference.scopes(tables):
        if not any(e["scope_id"] == scope for e in tables.get("epochs", ())):
            continue
        effective = {e["epoch"]: e["effective_at"] for e in reference.epochs_of(tables, scope)}
        for change in reference.changes(tables, scope):
            if effective[change["epoch"]] > T:
                continue
            proved = change["proved_in"]
            if proved is None or effective[proved] > T:
                found.add((scope, change["epoch"], change["partition_id"]))
    return found


# "strictly before" an instant: the times of these log sets are whole microseconds
BEFORE = timedelta(microseconds=1)


def _held_against(tables: Tables, scope: str, t: Any) -> Any:
    """The frontier a cutover or a publication is held against at t: the proven one
    where it is a scalar, else the claimed one; None where both are vectors."""
    for basis in ("proven", "claimed"):
        found = reference.frontier(tables, scope, basis, t)
        if found["kind"] == "scalar":
            return (found["frontier"], found["frontier_inclusive"])
    return None


def cutover_overclaim(tables: Tables, T: Any) -> set[Key]:
    """An epoch in effect by T has a cutover above the frontier in force on the rows
    strictly before its effective_at (proven basis where it is a scalar, else
    claimed), or that frontier is a vector on both bases, or the cutover's endpoint is
    unknown (§4.13); a scope's first epoch is exempt."""
    found = set()
    for scope in reference.scopes(tables):
        declared = [e for e in tables.get("epochs", ()) if e["scope_id"] == scope]
        if not declared:
            continue
        first = min(e["epoch"] for e in declared)
        discrete = _discrete(tables, scope)
        for epoch in declared:
            if epoch["epoch"] == first or epoch["effective_at"] > T:
                continue
            cutover = (epoch["cutover"], epoch["cutover_inclusive"])
            before = _held_against(tables, scope, epoch["effective_at"] - BEFORE)
            if cutover[1] is None or before is None or reference.above(cutover, before, discrete):
                found.add((scope, epoch["epoch"]))
    return found


def published_overclaim(tables: Tables, T: Any) -> set[Key]:
    """A scalar published by T (a null frontier read as +inf, a null endpoint as
    inclusive) is above the recomputed frontier at published_at (proven basis where it
    is a scalar, else claimed), both recomputed frontiers are vectors, or it names an
    epoch other than the one in force: a null epoch only for a scope without epochs,
    whose epoch 1 is in force (or 1 itself). Whether a scope has epochs is judged on
    the whole log set (§3): ``tables`` is not cut at T."""
    found = set()
    for row in tables.get("published", ()):
        if row["kind"] != "scalar" or row["published_at"] > T:
            continue
        scope, at = row["scope_id"], row["published_at"]
        if any(e["scope_id"] == scope for e in tables.get("epochs", ())):
            wrong_epoch = row.get("epoch") is None or row["epoch"] != reference.epoch_at(
                tables, scope, at
            )
        else:
            wrong_epoch = row.get("epoch") not in (None, 1)
        value = reference.INF
        if row.get("frontier") is not None:
            inclusive = row.get("frontier_inclusive")
            value = (row["frontier"], True if inclusive is None else inclusive)
        against = _held_against(tables, scope, at)
        if (
            wrong_epoch
            or against is None
            or reference.above(value, against, _discrete(tables, scope))
        ):
            found.add((scope, at))
    return found


RULES = {
    "cas_chain_broken": cas_chain_broken,
    "stale_owner_won": stale_owner_won,
    "watermark_regressed": watermark_regressed,
    "unknown_endpoint": unknown_endpoint,
    "mixed_checkpoint": mixed_checkpoint,
    "token_as_watermark": token_as_watermark,
    "empty_page_advanced": empty_page_advanced,
    "overclaim": overclaim,
    "ordering_mutated": ordering_mutated,
    "replayed_events": replayed_events,
    "skipped_event": skipped_event,
    "unproven_membership": unproven_membership,
    "cutover_overclaim": cutover_overclaim,
    "published_overclaim": published_overclaim,
}

# each rule's key (§5), as columns of the findings table
KEYS = {
    "cas_chain_broken": ("scope_id", "partition_id", "attempt_id", "generation"),
    "stale_owner_won": ("scope_id", "partition_id", "attempt_id", "generation"),
    "watermark_regressed": ("scope_id", "partition_id", "attempt_id", "generation"),
    "unknown_endpoint": ("scope_id", "partition_id", "attempt_id", "generation"),
    "mixed_checkpoint": ("scope_id", "partition_id", "attempt_id", "generation"),
    "token_as_watermark": ("scope_id", "partition_id", "attempt_id", "generation"),
    "empty_page_advanced": ("scope_id", "partition_id", "attempt_id", "generation"),
    "overclaim": ("scope_id", "partition_id", "attempt_id", "generation"),
    "ordering_mutated": ("scope_id", "partition_id", "event_id"),
    "replayed_events": ("scope_id", "partition_id"),
    "skipped_event": ("scope_id", "partition_id", "event_id"),
    "unproven_membership": ("scope_id", "epoch", "partition_id"),
    "cutover_overclaim": ("scope_id", "epoch"),
    "published_overclaim": ("scope_id", "at"),
}

# the rules that read the whole log set, not the one cut at T (published_overclaim:
# whether a scope has epochs, §3)
WHOLE = {"published_overclaim"}
