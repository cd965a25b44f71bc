"""report.html's "why is the frontier here" panel: per scope and basis, in words.

For a scalar frontier: its value and epoch, since when it has had that value (the
last change in the frontier history), the partitions that hold it (capped, with
"+N more") and, for each of the first few, what holds it: the committed watermark,
the blocking event or incomplete page and why it blocks, the claim against the proof.
For a vector: why no honest scalar exists, reason by reason, the members without a
certificate, and the lowest members' certificates, the first few explained as a
scalar's holders are. Nothing is cut silently: a list capped says how many more
there are and where they are. Built from the audit's own tables; every value escaped.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from reconcile.audit import AuditResult
from reconcile.render.safe import html_text as _e
from reconcile.render.values import cert_text, times_as_text, value_text

SHOWN = 5  # limiting partitions named
EXPLAINED = 3  # limiting partitions explained one by one

REASONS = {
    "no_certificate": "a member has no certificate on this basis (or the epoch has no members)",
    "unknown_endpoint": "a member's claim does not say whether it includes its endpoint",
    "incomparable_ordering": "a member's claim is stated in another ordering than the scope's",
    "unproven_membership": "a membership change of the epoch still lacks its proof"
    " (see the unproven_membership findings)",
}

# why a frontier is one value: the contrary of every reason in REASONS
_SCALAR_BECAUSE = (
    "One value, because each of the epoch's {members} member(s) has a certificate on"
    " this basis, with a known endpoint, in the scope's ordering, and the epoch's"
    " membership is proven; the lowest of them is the frontier."
)

BLOCKING = {
    "ordering_mutated": "its event was seen at two positions",
    "failed": "its event failed and has no durable outcome",
    "unstable_ineligible": "its event was judged ineligible without a stable proof",
    "not_attempted": "its event has no receipt at all",
    "incomplete_page": "a page has fewer receipts than events",
}


def _value(value: Any) -> str:
    return value_text(value)


def _cert(through: Any, inclusive: Any, null: str = "none") -> str:
    return _e(cert_text(through, inclusive, null=null))


def _receipts(row: dict[str, Any], got: dict[str, Any] | None, looked_up: bool) -> str:
    """What the blocking event's receipts were: how many, and the first few."""
    if not looked_up:
        return "its receipts were not looked up (this audit ran in pieces): see receipts"
    if got is None:
        # not_attempted says so already
        return (
            ""
            if row.get("blocking_reason") == "not_attempted"
            else "it has no receipt counted at T"
        )
    count = got["receipt_count"]
    shown = got["first_receipts"] or []
    each = ", ".join(
        f"{_e(r['outcome'])} at {_e(_value(r['recorded_at']))} in attempt"
        f" {_e(r['attempt_id'])}"
        + (f" on page {_e(r['page_id'])}" if r["page_id"] is not None else "")
        + (
            f" at position {_e(_value(r['position']))}"
            if r["position"] != row["blocking_position"]
            else ""
        )
        for r in shown
    )
    more = f", +{count - len(shown):,} more (receipts)" if count > len(shown) else ""
    return f"its receipts ({count:,}): {each}{more}"


def _partition(
    row: dict[str, Any],
    anchor: dict[str, Any] | None,
    looked_up: bool = True,
    got: dict[str, Any] | None = None,
) -> str:
    """What holds one partition back, in one list item."""
    name = f"<b>{_e(row['partition_id'])}</b>"
    parts = []
    if row["committed_position"] is not None:
        parts.append(
            f"committed through {_e(_value(row['committed_position']))}"
            f" (event {_e(row['committed_event_id'])})"
        )
    else:
        parts.append("nothing committed")
    reason = row["blocking_reason"]
    if reason is not None:
        what = BLOCKING.get(reason, reason)
        if row["blocking_event_id"] is not None:
            parts.append(
                f"blocked by event <b>{_e(row['blocking_event_id'])}</b> at position"
                f" {_e(_value(row['blocking_position']))}: {_e(what)}"
                + "".join(f"; {t}" for t in [_receipts(row, got, looked_up)] if t)
            )
        else:
            parts.append(f"blocked at position {_e(_value(row['blocking_position']))}: {_e(what)}")
    if row["provider_through"] is None:
        parts.append("no provider certificate (no finality, no snapshot bound)")
    elif row["consumer_through"] is None:
        # +inf on receipts: no known event lacks a durable outcome
        parts.append(
            "no known event after that lacks a durable outcome, and the source certifies"
            " completeness (page finality or snapshot bound) up to"
            f" {_cert(row['provider_through'], row['provider_inclusive'])}: the proof"
            " reaches that far, no further"
        )
    elif row["provider_through"] < row["consumer_through"]:
        parts.append(
            "the receipts prove it through"
            f" {_cert(row['consumer_through'], row['consumer_inclusive'])}, but the source"
            " certifies completeness (page finality or snapshot bound) only up to"
            f" {_cert(row['provider_through'], row['provider_inclusive'])}, so the proof"
            " stops there"
        )
    parts.append(
        f"claimed {_cert(row['claimed_through'], row['claimed_inclusive'])}"
        f" against proven {_cert(row['proven_through'], row['proven_inclusive'])}"
        f" (claim: {_e(row['claim_status'])})"
    )
    if anchor is not None:
        parts.append(
            f"replay from resume token <b>{_e(anchor['resume_token'])}</b> (the latest won"
            f" checkpoint below the blocking point: generation {_e(anchor['anchor_generation'])}"
            f" of attempt {_e(anchor['anchor_attempt_id'])}, claiming through"
            f" {_e(_value(anchor['anchor_watermark']))}; a later checkpoint's token, such as"
            " one a finding's evidence names, resumes past the blocking event)"
        )
    elif reason is not None and row["blocking_position"] is not None:
        if looked_up:
            # no token to name: the only restart the logs support is the beginning
            parts.append(
                "replay it from the partition's start: no won checkpoint below position"
                f" {_e(_value(row['blocking_position']))} names a resume token"
            )
        else:
            parts.append(
                "replay it from a checkpoint written before position"
                f" {_e(_value(row['blocking_position']))} (this audit ran in pieces and did"
                " not look the tokens up: see checkpoints)"
            )
    return f"<li>{name}: " + "; ".join(parts) + ".</li>"


def _rank(member: dict[str, Any]) -> tuple[Any, int]:
    """A member's certificate as a sort key: the value, then exclusive before
    inclusive (an unknown endpoint read as inclusive, its strongest reading)."""
    return (member["through"], 0 if member["inclusive"] is False else 1)


def _more(count: int, where: str) -> str:
    return f" +{count} more ({where})" if count > 0 else ""


def _since(history: pl.DataFrame, frontiers: pl.DataFrame, scope: str, basis: str) -> str:
    """Since when the frontier at T has had its value: the last history row's time
    where that row holds it. The history holds the frontier at the instants of §4.15
    alone (won writes, epoch changes); a proven frontier that rose after the last of
    them holds a value no row has, and is said to have reached it after that row. The
    proven frontier also moves between those instants, as receipts arrive (a failed
    event lowers it, its retry raises it), unrecorded: for it, a last row of the same
    value says only that it held the value then too, not since."""
    rows = history.filter((pl.col("scope_id") == scope) & (pl.col("basis") == basis))
    if not rows.height:
        return ""
    last = rows.sort("at").tail(1)
    at = _e(_value(times_as_text(last.select("at"), " ")["at"][0]))
    now = frontiers.filter((pl.col("scope_id") == scope) & (pl.col("basis") == basis))
    keys = ["kind", "frontier", "frontier_inclusive"]
    # compared as exact text: as Python datetimes, times nanoseconds apart are equal
    exact = times_as_text(last.select(keys)).rows() == times_as_text(now.select(keys)).rows()
    if now.height and exact:
        if basis == "claimed":
            return f" since {at}"
        return (
            f" (as at {at}, the last instant the history records: it records the"
            " frontier at won writes and epoch changes only, and the proven frontier"
            " moves between them as receipts arrive)"
        )
    return (
        f" (reached after {at}, the last instant the history records: it records the"
        " frontier at won writes and epoch changes only)"
    )


def _by_partition(rows: pl.DataFrame, scope: str) -> dict[str, dict[str, Any]]:
    """One scope's rows of a per-partition table, by partition_id (none where the
    table is empty: an audit run in pieces)."""
    if "scope_id" not in rows.columns:
        return {}
    return {
        r["partition_id"]: r for r in rows.filter(pl.col("scope_id") == scope).iter_rows(named=True)
    }


def _unproven(findings: pl.DataFrame, scope: str, epoch: Any) -> str:
    """The partitions whose membership change lacks its proof in ``epoch``, named
    (their unproven_membership findings), and what proves one."""
    rows = findings.filter(
        (pl.col("rule") == "unproven_membership")
        & (pl.col("scope_id") == scope)
        & (pl.col("epoch") == epoch)
    )
    names = sorted(set(rows["partition_id"].drop_nulls().to_list()))
    if not names:
        return ""
    shown = ", ".join(f"<b>{_e(p)}</b>" for p in names[:SHOWN])
    shown += _more(len(names) - SHOWN, "findings, unproven_membership")
    return (
        f"<p>Lacking its proof: {shown}. A joining member's <code>coverage_from</code>"
        " reaching back to the cutover, or a leaving partition's seal through it, proves"
        " the change (docs/rules.md#unproven_membership).</p>"
    )


def why_panel(result: AuditResult, scope: str) -> str:
    """The panel of one scope: a paragraph per basis, proven first."""
    # times as exact text (a Python datetime would cut nanoseconds off); their text
    # sorts as they do, so the members' certificates still sort lowest first
    marks = {
        r["partition_id"]: r
        for r in times_as_text(
            result.watermarks.filter(pl.col("scope_id") == scope), " "
        ).iter_rows(named=True)
    }
    # an audit run in pieces (Spark) has no anchors table: it did not look
    looked_up = "scope_id" in result.anchors.columns
    anchors = _by_partition(result.anchors, scope) if looked_up else {}
    got = _by_partition(result.blocking_receipts, scope) if looked_up else {}

    def explain(partition: str) -> str:
        return _partition(marks[partition], anchors.get(partition), looked_up, got.get(partition))

    out = [f'<div class="why" id="why-{_e(scope)}">']
    rows = result.frontiers.filter(pl.col("scope_id") == scope).sort("basis", descending=True)
    for row in times_as_text(rows, " ").iter_rows(named=True):
        basis, epoch = row["basis"], row["epoch"]
        when = _since(result.frontier_history, result.frontiers, scope, basis)
        head = f"<p><b>{_e(basis.capitalize())}</b>"
        if row["kind"] == "scalar":
            held = row["limiting_partitions"] or []
            names = ", ".join(f"<b>{_e(p)}</b>" for p in held[:SHOWN])
            names += _more(len(held) - SHOWN, "all in frontiers.parquet, limiting_partitions")
            out.append(
                f"{head}: complete through"
                f" {_cert(row['frontier'], row['frontier_inclusive'], null='+inf')}"
                f" in epoch {_e(epoch)}, at this value{when}; held by {names}."
                f" {_SCALAR_BECAUSE.format(members=_e(row['members']))}</p>"
            )
            items = [explain(p) for p in held[:EXPLAINED] if p in marks]
            if items:
                out.append("<ul>" + "".join(items) + "</ul>")
            if len(held) > EXPLAINED:
                rest = len(held) - EXPLAINED
                out.append(
                    f"<p>{rest} more {'holds' if rest == 1 else 'hold'} it at the same value,"
                    " not explained one by one here (watermarks.parquet has each one's"
                    " state).</p>"
                )
        else:
            reasons = row["reasons"] or []
            out.append(
                f"{head}: no single value (a vector) in epoch {_e(epoch)}{when}, because: "
                + "; ".join(_e(REASONS.get(r, r)) for r in reasons)
                + ".</p>"
            )
            if "unproven_membership" in reasons:
                out.append(_unproven(result.findings, scope, epoch))
            members = row["vector"] or []
            missing = [v["partition_id"] for v in members if v["through"] is None]
            if "no_certificate" in reasons and missing:
                shown = ", ".join(f"<b>{_e(p)}</b>" for p in missing[:SHOWN])
                more = _more(len(missing) - SHOWN, "frontiers.parquet, vector")
                out.append(f"<p>Members without a certificate: {shown}{more}.</p>")
            certified = sorted((v for v in members if v["through"] is not None), key=_rank)
            if certified:
                lowest = "; ".join(
                    f"<b>{_e(v['partition_id'])}</b> {_cert(v['through'], v['inclusive'])}"
                    for v in certified[:SHOWN]
                )
                lowest += _more(len(certified) - SHOWN, "frontiers.parquet, vector")
                out.append(
                    f"<p>The members' certificates, lowest first: {lowest}. No merged value"
                    " above the lowest of them would be honest at this time, whatever the"
                    " reason above.</p>"
                )
                items = [
                    explain(v["partition_id"])
                    for v in certified[:EXPLAINED]
                    if v["partition_id"] in marks
                ]
                if items:
                    out.append("<ul>" + "".join(items) + "</ul>")
    out.append("</div>")
    return "".join(out)
