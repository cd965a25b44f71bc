"""The audit rules of docs/contract.md §5: each a named query producing findings.

Every rule's query gives the columns of :data:`FINDING`, one row per finding; a rule
whose ``needs`` (contract tables) the log set lacks finds nothing. The partition
rules read one partition's rows and the partition phase alone (so that they can run
on any split of the partitions); the scope rules read the frontier, membership or
publications of a whole scope. Adding a rule: write ``sql/audit/<rule>.sql`` and add
one ``rule(...)`` line to :data:`PARTITION_RULES` or :data:`SCOPE_RULES`.
"""

from __future__ import annotations

from reconcile.engine.declare import Producer, Step, Union, table
from reconcile.engine.steps.history import POINTS_COLUMNS, evaluate_points

FINDING = (
    "rule VARCHAR, severity VARCHAR, scope_id VARCHAR, partition_id VARCHAR, epoch BIGINT,"
    " at TIMESTAMP_NS, event_id VARCHAR, attempt_id VARCHAR, generation BIGINT,"
    " page_id VARCHAR, message VARCHAR, evidence JSON"
)


def rule(
    name: str, reads: tuple[str, ...], *, needs: tuple[str, ...] = (), params: tuple[str, ...] = ()
) -> Step:
    """The step of rule ``name``: ``sql/audit/<name>.sql`` into ``rc_finding_<name>``."""
    return Step(
        f"audit/{name}",
        table(f"rc_finding_{name}", FINDING, f"one row per {name} finding at T"),
        reads=reads,
        needs=needs,
        params=params,
    )


# A won write: the checkpoints' columns (with the file and row it came from), and
# what the write rules compare it to.
WON_COLUMNS = (
    "scope_id VARCHAR, partition_id VARCHAR, attempt_id VARCHAR, owner_epoch BIGINT,"
    " expected_generation BIGINT, generation BIGINT, cas_result VARCHAR,"
    " written_at TIMESTAMP_NS, resume_token VARCHAR, page_id VARCHAR, watermark COORD,"
    " watermark_inclusive BOOLEAN, watermark_event_id VARCHAR, ordering VARCHAR,"
    " __file VARCHAR, __row BIGINT, __overwrite BOOLEAN, discrete BOOLEAN, comparable BOOLEAN,"
    " claim CERT,"
    " write_id BIGINT, previous_generation BIGINT, highest_epoch_before BIGINT,"
    " previous_claim CERT, claim_before CERT"
)

WON = Step(
    "audit/won_writes",
    table(
        "rc_won",
        WON_COLUMNS,
        "one row per won write up to T, with what the write rules compare it to",
    ),
    reads=("checkpoints", "rc_scopes"),
)

TOKEN_WRITES = Step(
    "audit/token_writes",
    table(
        "rc_token_writes",
        "scope_id VARCHAR, partition_id VARCHAR, attempt_id VARCHAR, generation BIGINT,"
        " written_at TIMESTAMP_NS, page_id VARCHAR, watermark COORD, resume_token VARCHAR,"
        " next_token VARCHAR, token VARCHAR",
        "one row per won write whose watermark is a token read as a coordinate",
    ),
    reads=("rc_won", "pages"),
)

LATE_REACH = Step(
    "audit/late_reach",
    table(
        "rc_late_reach",
        "idx BIGINT, pk PK, t TIMESTAMP_NS, discrete BOOLEAN, reach CERT",
        "one row per partition and instant a won write came: the highest claim written"
        " up to then, numbered partition by partition in time order",
        transient=True,
    ),
    reads=("rc_won",),
    needs=("snapshot",),
)

WRITE_POINTS = Step(
    "audit/write_points",
    table(
        "rc_write_points",
        POINTS_COLUMNS,
        "each won write as a point of the exact evaluator",
        transient=True,
    ),
    reads=("rc_won",),
)

WRITE_CERTS = Step(
    "audit/write_certs",
    table(
        "rc_write_certs",
        WON_COLUMNS + ", consumer CERT, provider CERT, proven CERT, refutation CERT",
        "one row per won write, with the partition's certificates at its written_at",
    ),
    reads=("rc_won", "rc_write_point_certs"),
    bind=(("rc_point_certs", "rc_write_point_certs"),),
)

PARTITION_RULES = (
    rule("skipped_event", ("rc_certs", "rc_open_events")),
    rule(
        "overclaim",
        (
            "rc_write_certs",
            "rc_token_writes",
            "rc_mutated",
            "rc_partitions",
            "snapshot",
            "receipts",
            "pages",
        ),
    ),
    rule("watermark_regressed", ("rc_won",)),
    rule("cas_chain_broken", ("rc_won",)),
    rule("stale_owner_won", ("rc_won",)),
    rule("mixed_checkpoint", ("rc_won", "pages"), needs=("pages",)),
    rule("token_as_watermark", ("rc_token_writes",)),
    rule("empty_page_advanced", ("rc_write_certs", "pages"), needs=("pages",)),
    rule("ordering_mutated", ("rc_partitions", "rc_open_events", "rc_mutations")),
    rule("late_insert", ("rc_won", "rc_late_events", "rc_partitions"), needs=("snapshot",)),
    rule("unknown_endpoint", ("rc_won",)),
    rule("replayed_events", ("rc_blocking",)),
)

SCOPE_RULES = (
    rule("unproven_membership", ("rc_epochs", "rc_changes"), needs=("epochs",)),
    rule("cutover_overclaim", ("rc_epochs", "rc_frontier_at"), needs=("epochs",)),
    rule(
        "published_overclaim",
        ("rc_scopes", "rc_frontier_at", "published", "epochs"),
        needs=("published",),
    ),
    rule("published_regressed", ("rc_scopes", "published", "epochs"), needs=("published",)),
    rule("stalled_partition", ("rc_frontier_at", "rc_claim_segments"), params=("stall_ns",)),
)

# What a rule needs to check anything at all, for the report (junit.xml skips a rule a
# log set cannot give it, never passes it): alternatives, each a set of contract
# tables all present. By default its step's ``needs``. These rules' steps run on any
# log set (without these tables their product is empty), so it is said here: events
# are named, and moved (an event the snapshot lists at two positions is mutated,
# docs/contract.md §8), by receipts or the snapshot; only receipts replay them.
REPORT_NEEDS: dict[str, tuple[tuple[str, ...], ...]] = {
    "skipped_event": (("receipts",), ("snapshot",)),
    "ordering_mutated": (("receipts",), ("snapshot",)),
    "replayed_events": (("receipts",),),
}

PARTITION_FINDINGS = Union(
    table(
        "rc_partition_findings",
        FINDING,
        "the findings of the partition rules (unsorted)",
    ),
    parts=tuple(r.name for r in PARTITION_RULES),
)

FINDINGS = Union(
    table("rc_findings", FINDING, "every finding at T (unsorted; see sort_findings)"),
    parts=("rc_partition_findings", *(r.name for r in SCOPE_RULES)),
)

STEPS: tuple[Producer, ...] = (
    WON,
    TOKEN_WRITES,
    LATE_REACH,
    WRITE_POINTS,
    *evaluate_points("write", "rc_write_points"),
    WRITE_CERTS,
    *PARTITION_RULES,
    PARTITION_FINDINGS,
    *SCOPE_RULES,
    FINDINGS,
)
