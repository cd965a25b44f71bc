"""The audit rules as a catalog: each rule's severity, key and one-line meaning.

The contract's §5 table (docs/contract.md), in one place for everything that names
rules without running them: the simulator's truth, the machine outputs
(findings.json, junit.xml), ``reconcile diff``. The rules' queries are the engine's
(:mod:`reconcile.engine.steps.rules`); a test holds the two, and docs/rules.md, to
the same set of rules. Plain Python: importing it loads no engine.
"""

from __future__ import annotations

from typing import NamedTuple

# Most severe first: the order of every sort, filter and threshold (--fail-on).
SEVERITIES = ("critical", "error", "warning", "info")

DOCS = "docs/rules.md"


class Rule(NamedTuple):
    severity: str
    key: tuple[str, ...]  # with scope_id, the fields that identify one finding
    meaning: str


_WRITE = ("partition_id", "attempt_id", "generation")

RULES: dict[str, Rule] = {
    "skipped_event": Rule(
        "critical",
        ("partition_id", "event_id"),
        "an eligible event without a durable outcome lies under the partition's claim",
    ),
    "overclaim": Rule(
        "error", _WRITE, "a won claim is above what the evidence allowed when it was written"
    ),
    "watermark_regressed": Rule(
        "error", _WRITE, "a won claim is below the partition's latest earlier claim"
    ),
    "cas_chain_broken": Rule(
        "critical", _WRITE, "a won write did not follow the previous won generation"
    ),
    "stale_owner_won": Rule(
        "critical", _WRITE, "a writer with an older owner epoch won after a newer one"
    ),
    "mixed_checkpoint": Rule(
        "error", _WRITE, "a won write's resume token was not handed to its own attempt"
    ),
    "token_as_watermark": Rule(
        "error", _WRITE, "a won write's watermark is a page token read as a coordinate"
    ),
    "empty_page_advanced": Rule(
        "error", _WRITE, "an empty page without finality raised the claim past the proof"
    ),
    "ordering_mutated": Rule(
        "critical", ("partition_id", "event_id"), "an event was seen at two positions"
    ),
    "late_insert": Rule(
        "critical",
        ("partition_id", "event_id"),
        "an eligible event became visible behind a claim that already covered it",
    ),
    "unknown_endpoint": Rule(
        "warning", _WRITE, "a won claim does not say whether it includes its endpoint"
    ),
    "unproven_membership": Rule(
        "error", ("epoch", "partition_id"), "a membership change still lacks its proof"
    ),
    "cutover_overclaim": Rule(
        "error", ("epoch",), "an epoch cut over above the frontier proven before it"
    ),
    "published_overclaim": Rule(
        "critical", ("at",), "a published frontier is above the recomputed frontier"
    ),
    "published_regressed": Rule(
        "error", ("at",), "a published frontier is below an earlier one of its epoch"
    ),
    "stalled_partition": Rule(
        "info", ("partition_id",), "a partition held the claimed frontier unchanged too long"
    ),
    "replayed_events": Rule(
        "info", ("partition_id",), "events with more than one durable receipt (at-least-once)"
    ),
}


def key_fields(rule: str) -> tuple[str, ...]:
    """The fields that identify one finding of ``rule``: its scope and its key."""
    return ("scope_id", *RULES[rule].key)


def doc_anchor(rule: str) -> str:
    """Where docs/rules.md explains ``rule`` and what to do about it."""
    return f"{DOCS}#{rule}"


def at_or_above(severity: str) -> tuple[str, ...]:
    """The severities at or above ``severity`` (a ``--fail-on`` value)."""
    return SEVERITIES[: SEVERITIES.index(severity) + 1]


# What to do about each rule's findings: the "What to do" paragraph of docs/rules.md,
# in Markdown (code in backticks), for outputs that travel without the docs (report.html).
# tests/test_docs.py holds the two equal.
ACTIONS: dict[str, str] = {
    "skipped_event": (
        "Data is missing downstream. Replay the partition from a resume token written at "
        "or before the event's position (the partition's `watermarks` row and the "
        'report\'s "why is the frontier here" panel name the blocking event; the '
        "checkpoint history names the tokens), and let the sink's deduplication absorb "
        "the repeats. Then find why the claim passed the event: usually a token or the "
        "page's maximum written as the watermark (`overclaim` with its `cause` says "
        "which), or a failed event whose failure was swallowed."
    ),
    "cas_chain_broken": (
        "The checkpoint store's compare-and-swap did not hold. Check that every writer "
        "compares against the generation it read (not one it computed), that the store's "
        "conditional write is atomic, and that retries reread the winner after losing. "
        "Progress written by the other writer may have been overwritten: compare both "
        "attempts' claims with the partition's proven certificate."
    ),
    "stale_owner_won": (
        "Fence writes by owner epoch: the checkpoint's condition must include \"owner "
        'epoch ≥ the highest seen", not the generation alone. Treat what the stale writer '
        "claimed as unproven: replay from the last checkpoint the current owner wrote."
    ),
    "ordering_mutated": (
        "The source's ordering field changed under the consumer (an updated `updated_at` "
        "cursor, a re-sequenced event), so a watermark on it cannot prove anything past "
        "the event. Order by an immutable field, or bind the stream to a versioned "
        "snapshot; then replay the partition from before the lowest position."
    ),
    "late_insert": (
        "The event was very likely never read. Replay the partition from a token before "
        "its position. The source does not give an insertion-stable boundary: read with a "
        "lag (a replay window) wider than its commit delay, or against a versioned "
        "snapshot."
    ),
    "published_overclaim": (
        "Readers of the published frontier were told data was complete when it was not. "
        "Tell them (re-run what read past the proven frontier), then fix the publisher: "
        "publish the minimum over every member of the epoch, with the endpoint "
        "normalized, never a maximum, a token or a partition's largest event; publish a "
        "vector where no scalar is honest."
    ),
    "overclaim": (
        "By cause: `token`, the page token was stored as the watermark (see "
        "`token_as_watermark`); `empty_page`, an empty page without finality advanced "
        "progress (see `empty_page_advanced`); `past_blocking_event`, the watermark moved "
        "past an event without a durable outcome, so advance only through the gap-free "
        "durable prefix; `observed_max`, the largest event seen was taken for a "
        "completeness coordinate, so use the provider's finality instead; `unknown`, "
        "compare the claim with the `watermarks` row. If a later `skipped_event` names "
        "this partition, data was lost."
    ),
    "watermark_regressed": (
        "Usually a retry or a stale worker wrote an older watermark through a "
        "compare-and-swap that checks the generation only. Make the write keep the "
        "maximum (compare the watermark too), or fence by owner epoch. Data is re-read, "
        "not lost, but readers of the checkpoint saw progress undone."
    ),
    "mixed_checkpoint": (
        "A checkpoint combined one attempt's token with another's progress (typically a "
        "retry that lost the compare-and-swap, then wrote with the winner's generation). "
        "Reread the winner after losing and write its token and watermark together, never "
        "mixed. Resuming from this token may skip or repeat pages."
    ),
    "token_as_watermark": (
        "A token says where fetching reached, not where processing committed. Keep the "
        "token as the replay anchor, and write as the watermark the last position of the "
        "gap-free durable prefix."
    ),
    "empty_page_advanced": (
        "An empty page proves nothing unless the provider says it is final through a "
        "coordinate. Keep the watermark where it was, and let the partition keep holding "
        "the frontier, until a page with finality arrives."
    ),
    "unproven_membership": (
        "Until proven, the frontier of the epoch stays a vector (`unproven_membership`). "
        "For a joining partition, backfill it from the cutover and record "
        "`coverage_from`; for a leaving one, record `sealed_through` once it is complete "
        "through the cutover. Then write a new epoch with the proofs."
    ),
    "cutover_overclaim": (
        "The membership change was cut over at a point nobody had proven: events between "
        "the real frontier and the cutover may belong to no epoch's coverage. Cut over at "
        "the published proven frontier, and have new members cover from there."
    ),
    "published_regressed": (
        "Readers of the published frontier saw it go back: either the earlier value "
        "overclaimed (look for `published_overclaim` at its instant) or the publisher "
        "recomputed from a partial view. Publish only from the minimum over the whole "
        "epoch, and never lower within an epoch; a change of membership is a new epoch."
    ),
    "unknown_endpoint": (
        "Record whether the claim includes its endpoint. Until then the scope's frontier "
        "is a vector on both bases (`unknown_endpoint`), and the rules read the claim as "
        "inclusive (its strongest reading)."
    ),
    "stalled_partition": (
        "That partition holds the whole scope back. Look at its blocking event in "
        "`watermarks` (a failed event retried forever, a page never completed) and at its "
        "attempts: a worker that died without releasing its lease, or a source partition "
        "with no new events and no finality."
    ),
    "replayed_events": (
        "Expected under at-least-once delivery: replays after a crash or a lost "
        "checkpoint. Check that the sink deduplicates them (by event id), and watch the "
        "number: a rise means attempts resume from too far back."
    ),
}
