"""A deliberately plain pure-Python reading of docs/contract.md §4, kept in the tests.

Everything here is a direct transcription of the contract's sentences into loops
over small lists of dicts, with no attempt at speed: the engine is held against it
on random small log sets. Where the contract leaves a choice, the comment says which
reading is taken (the one that never overclaims).

Certificates are ``(through, inclusive)`` pairs, ``INF`` for +inf, ``None`` for none.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from itertools import pairwise
from typing import Any

from tests import certs
from tests.certs import INFINITE, Certificate, Domain

Row = Mapping[str, Any]
Tables = Mapping[str, Sequence[Row]]
INF = ("inf", None)
INT64_MIN = -(2**63)


# --- certificates --------------------------------------------------------------------


def _certificate(cert: Any) -> Certificate:
    return INFINITE if cert == INF else Certificate(cert[0], cert[1])


def _domain(discrete: bool) -> Domain:
    return Domain.DISCRETE if discrete else Domain.DENSE


def normalize(cert: Any, discrete: bool) -> Any:
    """The certificate as outputs state it (tests/certs.py): discrete exclusive ``v``
    is inclusive ``v - 1``, except at INT64_MIN, which stays exclusive."""
    if cert is None or cert == INF:
        return cert
    norm = certs.normalize(_certificate(cert), _domain(discrete))
    return (norm.through, norm.inclusive)


def cert_key(cert: Any, discrete: bool) -> tuple[int, Any, int]:
    """Sort key of a known-endpoint certificate (+inf last); unknown reads inclusive."""
    if cert == INF:
        return (1, 0, 0)
    known = Certificate(cert[0], True if cert[1] is None else cert[1])
    return certs.sort_key(known, _domain(discrete))


def write_order(row: Row, discrete: bool) -> tuple[Any, ...]:
    """A won write's place in its partition's order (§4.11: written_at, then
    generation, then attempt_id); writes that tie on all three are ordered by their
    state, a null watermark first, then by claim (the strongest claim is the latest),
    so that no result depends on the order of the rows in the files."""
    claim = row.get("watermark")
    return (
        row["written_at"],
        row["generation"],
        row["attempt_id"].encode(),
        claim is not None,
        cert_key((claim, row.get("watermark_inclusive")), discrete) if claim is not None else (),
        row.get("watermark_inclusive") is None,
        *(
            (row.get(k) or "").encode()
            for k in ("ordering", "watermark_event_id", "resume_token", "page_id")
        ),
        row["owner_epoch"],
        row["expected_generation"],
    )


def lower(a: Any, b: Any, discrete: bool) -> Any:
    return a if cert_key(a, discrete) <= cert_key(b, discrete) else b


def above(a: Any, b: Any, discrete: bool) -> bool:
    return cert_key(a, discrete) > cert_key(b, discrete)


# --- scopes and partitions -------------------------------------------------------------


def coordinate_is_int(tables: Tables) -> bool:
    columns = (
        ("checkpoints", "watermark"),
        ("receipts", "position"),
        ("pages", "min_position"),
        ("pages", "finality_through"),
        ("snapshot", "position"),
        ("snapshot_bounds", "complete_through"),
        ("epochs", "cutover"),
        ("members", "coverage_from"),
        ("members", "sealed_through"),
        ("published", "frontier"),
    )
    for name, column in columns:
        for row in tables.get(name, ()):
            value = row.get(column)
            if value is not None:
                return not isinstance(value, datetime)
    return True


def scopes(tables: Tables) -> dict[str, dict[str, Any]]:
    """Each scope's domain and ordering (declared, or defaulted as §3 says)."""
    declared = {row["scope_id"]: row for row in tables.get("scopes", ())}
    found: set[str] = set()
    for rows in tables.values():
        for row in rows:
            if row.get("scope_id") is not None:
                found.add(row["scope_id"])
    is_int = coordinate_is_int(tables)
    out = {}
    for scope in sorted(found | set(declared)):
        if scope in declared:
            out[scope] = {
                "domain": declared[scope]["domain"],
                "ordering": declared[scope]["ordering"],
            }
            continue
        named = {
            row["ordering"]
            for row in tables.get("checkpoints", ())
            if row["scope_id"] == scope and row.get("ordering") is not None
        }
        out[scope] = {
            "domain": "discrete" if is_int else "dense",
            "ordering": next(iter(named)) if len(named) == 1 else "default",
        }
    return out


def partitions(tables: Tables) -> list[tuple[str, str]]:
    found = set()
    for name, rows in tables.items():
        if name in ("scopes", "epochs", "published"):
            continue
        for row in rows:
            found.add((row["scope_id"], row["partition_id"]))
    return sorted(found)


def evidence(tables: Tables, scope: str, partition: str) -> str:
    def has(name: str) -> bool:
        return any(
            r["scope_id"] == scope and r["partition_id"] == partition for r in tables.get(name, ())
        )

    if has("snapshot") or has("snapshot_bounds"):
        return "snapshot"
    if has("receipts") or has("pages"):
        return "receipts"
    return "none"


# --- one partition at T ----------------------------------------------------------------


@dataclass
class Event:
    event_id: str
    positions: set[Any] = field(default_factory=set)
    durable: int = 0  # durable receipts counted at T
    failed: bool = False
    ineligible: bool = False
    ineligible_stable: bool = False
    in_snapshot: bool = False
    snap_eligible: list[bool] = field(default_factory=list)
    snap_stable: list[bool] = field(default_factory=list)

    @property
    def position(self) -> Any:
        return min(self.positions)

    @property
    def mutated(self) -> bool:
        return len(self.positions) > 1

    def order(self) -> tuple[Any, int, bytes, int]:
        """An event's place: (position, 1, id, 0); a page block sorts around it."""
        return (self.position, 1, self.event_id.encode("utf-8"), 0)

    @property
    def eligible(self) -> bool:
        if self.in_snapshot:
            # ineligible only when every visible snapshot row says so
            return not all(e is False for e in self.snap_eligible)
        return not (self.ineligible and self.durable == 0)

    @property
    def passable(self) -> bool:
        if self.mutated:
            return False
        if self.durable:
            return True
        if self.in_snapshot:
            return (not self.eligible) and all(self.snap_stable)
        return self.ineligible_stable and not self.failed

    @property
    def reason(self) -> str:
        if self.mutated:
            return "ordering_mutated"
        if self.failed:
            return "failed"
        unstable = not self.eligible or (self.in_snapshot and self.eligible and self.ineligible)
        if unstable:
            return "unstable_ineligible"
        return "not_attempted"


def _rows(tables: Tables, name: str, scope: str, partition: str) -> list[Row]:
    return [
        r for r in tables.get(name, ()) if r["scope_id"] == scope and r["partition_id"] == partition
    ]


def known_events(tables: Tables, scope: str, partition: str, T: Any, ev: str) -> dict[str, Event]:
    events: dict[str, Event] = {}
    if ev == "snapshot":
        for row in _rows(tables, "snapshot", scope, partition):
            if row.get("visible_at") is not None and row["visible_at"] > T:
                continue
            e = events.setdefault(row["event_id"], Event(row["event_id"]))
            e.in_snapshot = True
            e.positions.add(row["position"])
            e.snap_eligible.append(row["eligible"])
            e.snap_stable.append(row["eligibility_stable"])
    for row in _rows(tables, "receipts", scope, partition):
        if row["recorded_at"] > T:
            continue
        e = events.setdefault(row["event_id"], Event(row["event_id"]))
        e.positions.add(row["position"])
        if row["outcome"] in ("committed", "dead_lettered"):
            e.durable += 1
        elif row["outcome"] == "failed":
            e.failed = True
        elif row["outcome"] == "ineligible":
            e.ineligible = True
            if row.get("eligibility_stable") is True:
                e.ineligible_stable = True
    return events


def counting_pages(pages: list[Row]) -> list[Row]:
    """§4.9: pages on a traversal, by fixed point."""
    counting: list[Row] = [p for p in pages if p.get("request_token") is None]
    changed = True
    while changed:
        changed = False
        for page in pages:
            if any(page is c for c in counting):
                continue
            if any(
                c.get("next_token") is not None
                and c["next_token"] == page.get("request_token")
                and c["fetched_at"] < page["fetched_at"]
                for c in counting
            ):
                counting.append(page)
                changed = True
    return counting


def partition_state(tables: Tables, scope: str, partition: str, T: Any) -> dict[str, Any]:
    info = scopes(tables)[scope]
    discrete = info["domain"] == "discrete"
    ev = evidence(tables, scope, partition)
    events = known_events(tables, scope, partition, T, ev)
    ordered = sorted(events.values(), key=Event.order)

    # blocking points: (order key, position, event_id, reason)
    points: list[tuple[tuple[Any, ...], Any, str | None, str]] = []
    for e in ordered:
        if not e.passable:
            points.append((e.order(), e.position, e.event_id, e.reason))
            break
    if ev == "receipts":
        receipts_at_t = [
            r for r in _rows(tables, "receipts", scope, partition) if r["recorded_at"] <= T
        ]
        for page in _rows(tables, "pages", scope, partition):
            if page["fetched_at"] > T or page["event_count"] == 0:
                continue
            lo, hi = page["min_position"], page["max_position"]
            inside = sum(1 for e in events.values() if lo <= e.position <= hi)
            if inside >= page["event_count"]:
                continue
            on_page = {r["event_id"] for r in receipts_at_t if r.get("page_id") == page["page_id"]}
            mine = [e for e in ordered if e.event_id in on_page]
            if mine:
                last = mine[-1]
                key = (last.position, 1, last.event_id.encode(), 1)  # immediately after it
                points.append((key, last.position, None, "incomplete_page"))
            else:
                points.append(((lo, 0, b"", 0), lo, None, "incomplete_page"))  # before all at lo
    block = min(points, key=lambda p: p[0]) if points else None

    committed = None
    for e in ordered:
        if block is not None and e.order() >= block[0]:
            break
        if e.eligible and e.durable:
            committed = e
    consumer = INF if block is None else (block[1], False)

    provider = None
    if ev == "snapshot":
        bounds = _rows(tables, "snapshot_bounds", scope, partition)
        if bounds:
            provider = (bounds[0]["complete_through"], bounds[0]["complete_inclusive"])
    elif ev == "receipts":
        fetched = [p for p in _rows(tables, "pages", scope, partition) if p["fetched_at"] <= T]
        for page in counting_pages(fetched):
            if page.get("finality_through") is None:
                continue
            cert = (page["finality_through"], page["finality_inclusive"])
            provider = (
                cert
                if provider is None
                else max(provider, cert, key=lambda c: cert_key(c, discrete))
            )
    proven = None if provider is None else lower(consumer, provider, discrete)
    refutation = consumer if provider is None else lower(consumer, provider, discrete)

    won = [
        r
        for r in _rows(tables, "checkpoints", scope, partition)
        if r["cas_result"] == "won" and r["written_at"] <= T
    ]
    latest = max(won, key=lambda r: write_order(r, discrete), default=None)
    claim = None
    if latest is not None and latest.get("watermark") is not None:
        claim = (latest["watermark"], latest.get("watermark_inclusive"))
    if claim is None:
        status = "no_claim"
    elif (
        latest is not None
        and latest.get("ordering") is not None
        and latest["ordering"] != info["ordering"]
    ):
        status = "incomparable"
    elif claim[1] is None:
        status = "unknown_endpoint"
    elif above(claim, refutation, discrete):
        status = "overclaim"
    elif proven is None:
        status = "no_proof"
    else:
        status = "ok"

    def out(cert: Any) -> tuple[Any, Any]:
        if cert is None or cert == INF:
            return (None, None)
        if cert[1] is None:
            return (cert[0], None)
        return normalize(cert, discrete)

    eligible = [e for e in events.values() if e.eligible]
    return {
        "scope_id": scope,
        "partition_id": partition,
        "evidence": ev,
        "committed_position": committed.position if committed else None,
        "committed_event_id": committed.event_id if committed else None,
        "blocking_event_id": block[2] if block else None,
        "blocking_position": block[1] if block else None,
        "blocking_reason": block[3] if block else None,
        "consumer": out(consumer),
        "provider": out(provider),
        "proven": out(proven),
        "claimed": out(claim),
        "claimed_generation": latest["generation"] if claim is not None and latest else None,
        "claim_status": status,
        "eligible_events": len(eligible),
        "durable_events": sum(1 for e in eligible if e.durable),
        "replayed_events": sum(1 for e in events.values() if e.durable > 1),
        # for the rules (tests/rules_reference.py): the certificates as compared
        "claim_cert": claim,
        "refutation_cert": refutation,
        "consumer_cert": consumer,
        "proven_cert": proven,
        "discrete": discrete,
        "events": events,
    }


def end_of_log(tables: Tables) -> Any:
    times: list[Any] = []
    for name, column in (
        ("checkpoints", "written_at"),
        ("receipts", "recorded_at"),
        ("pages", "fetched_at"),
        ("epochs", "effective_at"),
        ("published", "published_at"),
        ("snapshot", "visible_at"),
    ):
        times.extend(r[column] for r in tables.get(name, ()) if r.get(column) is not None)
    return max(times)


def watermarks(tables: Tables, T: Any = None) -> list[dict[str, Any]]:
    at = end_of_log(tables) if T is None else T
    return [partition_state(tables, s, p, at) for s, p in partitions(tables)]


def rows_until(tables: Tables, T: Any) -> dict[str, list[Row]]:
    """The log set with every row after T removed (§4's as-of)."""
    stamps = {
        "checkpoints": "written_at",
        "receipts": "recorded_at",
        "pages": "fetched_at",
        "epochs": "effective_at",
        "published": "published_at",
        "snapshot": "visible_at",
    }
    out: dict[str, list[Row]] = {}
    for name, rows in tables.items():
        column = stamps.get(name)
        out[name] = [r for r in rows if column is None or r.get(column) is None or r[column] <= T]
    if "members" in out:
        # members of epochs cut away go with them (a valid log set keeps them together)
        kept = {(e["scope_id"], e["epoch"]) for e in out.get("epochs", ())}
        out["members"] = [m for m in out["members"] if (m["scope_id"], m["epoch"]) in kept]
        if not out["members"] or not out.get("epochs"):
            out.pop("members", None)
            out.pop("epochs", None)
    return out


def ids(rows: Iterable[Row]) -> list[Any]:
    return [(r["scope_id"], r["partition_id"]) for r in rows]


# --- membership and frontiers (§4.12-§4.15) ---------------------------------------------

DAWN = datetime(1, 1, 1)


def epochs_of(tables: Tables, scope: str) -> list[dict[str, Any]]:
    declared = [dict(e) for e in tables.get("epochs", ()) if e["scope_id"] == scope]
    if declared:
        return sorted(declared, key=lambda e: e["epoch"])
    return [
        {
            "scope_id": scope,
            "epoch": 1,
            "effective_at": DAWN,
            "cutover": None,
            "cutover_inclusive": None,
        }
    ]


def members_of(tables: Tables, scope: str, epoch: int) -> list[dict[str, Any]]:
    if any(e["scope_id"] == scope for e in tables.get("epochs", ())):
        return [
            dict(m)
            for m in tables.get("members", ())
            if m["scope_id"] == scope and m["epoch"] == epoch
        ]
    return [
        {"partition_id": p, "role": "member", "coverage_from": None}
        for s, p in partitions(tables)
        if s == scope
    ]


def member_ids(tables: Tables, scope: str, epoch: int) -> set[str]:
    return {m["partition_id"] for m in members_of(tables, scope, epoch) if m["role"] == "member"}


def changes(tables: Tables, scope: str) -> list[dict[str, Any]]:
    """Every membership change with the epoch where its proof first stands."""
    discrete = scopes(tables)[scope]["domain"] == "discrete"
    eps = epochs_of(tables, scope)
    out = []
    for before, here in pairwise(eps):
        cut = here.get("cutover")
        cut_incl = here.get("cutover_inclusive")
        old, new = (
            member_ids(tables, scope, before["epoch"]),
            member_ids(tables, scope, here["epoch"]),
        )
        for kind, ids in (("join", new - old), ("leave", old - new)):
            for pid in sorted(ids):
                proved = None
                for later in eps:
                    if later["epoch"] < here["epoch"] or cut is None or cut_incl is None:
                        continue
                    for row in members_of(tables, scope, later["epoch"]):
                        if row["partition_id"] != pid:
                            continue
                        if (
                            kind == "join"
                            and row["role"] == "member"
                            and row.get("coverage_from") is not None
                        ):
                            # discrete: C.through + 1 with C inclusive; the one discrete
                            # cutover left exclusive, (INT64_MIN, exclusive), needs
                            # coverage from INT64_MIN itself
                            c_through, c_incl = normalize((cut, cut_incl), discrete)
                            limit = c_through + 1 if discrete and c_incl else c_through
                            ok = row["coverage_from"] <= limit
                        elif kind == "leave" and row["role"] == "retiring":
                            seal = (row.get("sealed_through"), row.get("sealed_inclusive"))
                            ok = (
                                seal[0] is not None
                                and seal[1] is not None
                                and not above((cut, cut_incl), seal, discrete)
                            )
                        else:
                            ok = False
                        if ok and (proved is None or later["epoch"] < proved):
                            proved = later["epoch"]
                out.append(
                    {
                        "epoch": here["epoch"],
                        "partition_id": pid,
                        "change": kind,
                        "proved_in": proved,
                    }
                )
    return out


def epoch_proven(tables: Tables, scope: str, epoch: int) -> bool:
    return all(
        c["proved_in"] is not None and c["proved_in"] <= epoch
        for c in changes(tables, scope)
        if c["epoch"] <= epoch
    )


def epoch_at(tables: Tables, scope: str, T: Any) -> int | None:
    live = [e for e in epochs_of(tables, scope) if e["effective_at"] <= T]
    if not live:
        return None
    return max(live, key=lambda e: (e["effective_at"], e["epoch"]))["epoch"]


def frontier(tables: Tables, scope: str, basis: str, T: Any) -> dict[str, Any]:
    info = scopes(tables)[scope]
    discrete = info["domain"] == "discrete"
    epoch = epoch_at(tables, scope, T)
    if epoch is None:
        return {
            "epoch": None,
            "kind": "vector",
            "frontier": None,
            "frontier_inclusive": None,
            "limiting_partitions": [],
            "reasons": ["unproven_membership"],
            "members": 0,
        }
    ids = sorted(member_ids(tables, scope, epoch))
    certs = {}
    unknown = incomparable = missing = 0
    for pid in ids:
        state = partition_state(tables, scope, pid, T)
        pair = state["claimed"] if basis == "claimed" else state["proven"]
        # the claim's ordering and endpoint bar a scalar on either basis: "every
        # endpoint is known, all claims are in the scope's ordering" (§4.14)
        claim = state["claimed"]
        other_ordering = claim != (None, None) and state["claim_status"] == "incomparable"
        unknown_end = claim != (None, None) and claim[1] is None
        incomparable += other_ordering
        unknown += unknown_end  # every reason that applies: both may
        if pair == (None, None):
            missing += 1
        elif not (other_ordering or unknown_end):
            certs[pid] = pair
    proven = epoch_proven(tables, scope, epoch)
    reasons = []
    if not ids or missing:
        reasons.append("no_certificate")
    if unknown:
        reasons.append("unknown_endpoint")
    if incomparable:
        reasons.append("incomparable_ordering")
    if not proven:
        reasons.append("unproven_membership")
    if reasons:
        return {
            "epoch": epoch,
            "kind": "vector",
            "frontier": None,
            "frontier_inclusive": None,
            "limiting_partitions": [],
            "reasons": reasons,
            "members": len(ids),
        }
    low = min(certs.values(), key=lambda c: cert_key(c, discrete))
    limiting = [p for p in ids if cert_key(certs[p], discrete) == cert_key(low, discrete)]
    return {
        "epoch": epoch,
        "kind": "scalar",
        "frontier": low[0],
        "frontier_inclusive": low[1],
        "limiting_partitions": limiting,
        "reasons": [],
        "members": len(ids),
    }


def frontiers(tables: Tables, T: Any = None) -> list[dict[str, Any]]:
    at = end_of_log(tables) if T is None else T
    return [
        {"scope_id": s, "basis": b, **frontier(tables, s, b, at)}
        for s in scopes(tables)
        for b in ("claimed", "proven")
    ]


def frontier_history(tables: Tables, T: Any = None) -> list[dict[str, Any]]:
    at = end_of_log(tables) if T is None else T
    out = []
    for scope in scopes(tables):
        won = [
            r
            for r in tables.get("checkpoints", ())
            if r["scope_id"] == scope and r["cas_result"] == "won" and r["written_at"] <= at
        ]
        instants = sorted(
            {r["written_at"] for r in won}
            | {
                e["effective_at"]
                for e in tables.get("epochs", ())
                if e["scope_id"] == scope and e["effective_at"] <= at
            }
        )
        for basis in ("claimed", "proven"):
            previous = None
            for t in instants:
                f = frontier(tables, scope, basis, t)
                key = (f["epoch"], f["kind"], f["frontier"], f["frontier_inclusive"])
                if key == previous:
                    continue
                previous = key
                trigger = min(
                    (r for r in won if r["written_at"] == t),
                    key=lambda r: (r["partition_id"].encode(), r["generation"]),
                    default=None,
                )
                out.append(
                    {
                        "scope_id": scope,
                        "basis": basis,
                        "at": t,
                        **{
                            k: f[k]
                            for k in (
                                "epoch",
                                "kind",
                                "frontier",
                                "frontier_inclusive",
                                "limiting_partitions",
                            )
                        },
                        "trigger_partition_id": trigger["partition_id"] if trigger else None,
                        "trigger_generation": trigger["generation"] if trigger else None,
                    }
                )
    return out
