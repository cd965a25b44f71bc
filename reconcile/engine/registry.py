"""The pipeline: every step of the engine and its phases, in one registry.

The steps are declared by part (:mod:`reconcile.engine.steps`); the planner orders
them from their declarations. The phases are named slices of the same registry, for
an engine that spreads the audit over the partitions (the Spark engine,
:mod:`reconcile.audit.phases`):

1. ``partition`` (``partition_audit`` with the partition rules' findings), per
   bucket of partitions: the tables whose rows for a partition follow from that
   partition's rows and its scope's ``rc_scopes`` alone (:data:`PARTITION_PHASE`);
2. ``scope``, per scope, given those: the audit's tables, never reading the rows
   only buckets hold (:data:`PARTITION_ONLY`);
3. ``timelines``, per bucket: the timelines of the partitions drawn.
"""

from __future__ import annotations

from reconcile.engine.declare import Phase, Registry
from reconcile.engine.steps import frontier, history, rules, watermarks

# The contract tables whose rows belong to a partition: a bucket of partitions holds
# all of them for its partitions, and the partition phase reads no other.
PARTITION_INPUTS: tuple[str, ...] = (
    "checkpoints",
    "receipts",
    "pages",
    "snapshot",
    "snapshot_bounds",
    "members",
)

# The tables only the partitions' phases read (and validate).
PARTITION_ONLY: tuple[str, ...] = ("receipts", "snapshot", "snapshot_bounds")

# The partition phase: computed for any split of the partitions (rc_scopes given),
# their union is what the whole log set gives (tests/test_phases.py).
PARTITION_PHASE: tuple[str, ...] = (
    "rc_partition_scopes",
    "rc_partitions",
    "rc_receipt_faults",
    "rc_late_events",
    "rc_counting_pages",
    "rc_provider",
    "rc_claims",
    "rc_certs",
    "rc_mutated",
    "rc_page_receipts",
    "rc_page_status",
    "rc_event_summary",
    "rc_blocking",
    "rc_committed",
    "rc_open_events",
    "rc_mutations",
    "rc_event_segments",
    "rc_records",
    "rc_page_windows",
    "rc_moving_steps",
    "rc_provider_steps",
    "rc_claim_steps",
)

# The audit's tables (AuditResult), and the frames the commands read.
OUTPUTS: tuple[str, ...] = ("rc_watermarks", "rc_frontiers", "rc_frontier_history", "rc_findings")

PHASES = (
    Phase("scopes", produces=("rc_scopes",), doc="each scope's rc_scopes"),
    Phase(
        "partition",
        produces=PARTITION_PHASE,
        may_give=("rc_scopes",),
        doc="the partition phase of a bucket of partitions",
    ),
    Phase(
        "partition_audit",
        produces=(*PARTITION_PHASE, "rc_partition_findings"),
        may_give=("rc_scopes",),
        doc="the partition phase and the partition rules' findings",
    ),
    Phase(
        "scope",
        produces=OUTPUTS,
        given=(*PARTITION_PHASE, "rc_partition_findings"),
        never_reads=PARTITION_ONLY,
        doc="the audit of a scope, given its buckets' phases",
    ),
    Phase(
        "timelines",
        produces=("rc_timelines",),
        given=("rc_selected",),
        may_give=("rc_scopes",),
        doc="the timelines of a bucket's partitions",
    ),
)

REGISTRY = Registry(
    producers=(*watermarks.STEPS, *history.STEPS, *frontier.STEPS, *rules.STEPS),
    guards=(*watermarks.GUARDS, *frontier.GUARDS),
    phases=PHASES,
)
