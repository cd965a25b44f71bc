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
