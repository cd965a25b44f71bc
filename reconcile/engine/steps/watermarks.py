"""The watermarks of docs/contract.md §4.1-§4.11: each partition's state at T.

The event level (every event's receipts aggregated) is the one pass over all
receipts per event; it runs in slices of partitions (:data:`EVENT_LEVEL`) and keeps
only the events not settled by their first receipt (``rc_open_events``). The pages'
receipts are counted once for all slices before it (:data:`PAGE_PASS`).
"""

from __future__ import annotations

from reconcile.engine.declare import Guard, Lookup, Producer, Sliced, Step, table

# Receipts and snapshot rows per slice of partitions: beyond this many, the event
# level runs in slices, so that each slice's events and hash tables stay in memory.
# With a snapshot a slice holds two aggregates (its receipts' and its snapshot's)
# and their join; counting both tables' rows gives it half the partitions. At 100 M
# receipts with a 99 M-row snapshot, four slices spilled (bench/EVENT_LEVEL.md).
EVENTS_PER_SLICE = 25_000_000

PARTITION_SCOPES = Step(
    "watermarks/partition_scopes",
    table(
        "rc_partition_scopes",
        "scope_id VARCHAR",
        "one row per scope found in receipts, snapshot or snapshot_bounds",
    ),
    reads=("receipts", "snapshot", "snapshot_bounds"),
)

SCOPES = Step(
    "watermarks/scopes",
    table(
        "rc_scopes",
        "scope_id VARCHAR, domain VARCHAR, discrete BOOLEAN, ordering VARCHAR",
        "one row per scope found in any table: its domain and ordering (§3)",
    ),
    reads=(
        "checkpoints",
        "rc_partition_scopes",
        "pages",
        "epochs",
        "members",
        "published",
        "scopes",
    ),
    params=("default_domain",),
)

PARTITIONS = Step(
    "watermarks/partitions",
    table(
        "rc_partitions",
        "pk PK, scope_id VARCHAR, partition_id VARCHAR, evidence VARCHAR, discrete BOOLEAN",
        "one row per partition found in any table: its key and evidence (§4.2)",
    ),
    reads=(
        "rc_scopes",
        "checkpoints",
        "receipts",
        "pages",
        "snapshot",
        "snapshot_bounds",
        "members",
    ),
)

PARTITION_KEYS = Guard(
    "partition_keys",
    guards="rc_partitions",
    query="watermarks/partition_keys",
    reads=("rc_partitions",),
    message="{count} partition(s) of this log set share a 64-bit partition key (rc_pk)"
    " with another; the engine cannot tell them apart",
)

RECEIPT_FAULTS = Step(
    "watermarks/receipt_faults",
    table(
        "rc_receipt_faults",
        "pk PK, event_id VARCHAR, failed_at TIMESTAMP_NS, ineligible_at TIMESTAMP_NS,"
        " stable_at TIMESTAMP_NS",
        "one row per event of rc_open_events with a failed or ineligible receipt at T:"
        " when the first came",
    ),
    reads=("receipts", "rc_open_events"),
)

PAGE_PASS = Step(
    "watermarks/page_pass",
    table(
        "rc_page_pass",
        "scope_id VARCHAR, partition_id VARCHAR, page_id VARCHAR, n_receipts BIGINT,"
        " first_at TIMESTAMP_NS, last_at TIMESTAMP_NS, last_pos COORD, own_min_pos COORD",
        "one row per page with receipts at T, every receipt at its own position: the"
        " pages' receipts in one pass, before the event level's slices",
    ),
    reads=("receipts",),
)

_KNOWN_EVENTS_COLUMNS = (
    "pk PK, event_id VARCHAR, in_snapshot BOOLEAN, sort_pos COORD, mutated BOOLEAN,"
    " snap_eligible BOOLEAN, snap_stable BOOLEAN, visible_at TIMESTAMP_NS,"
    " always_visible BOOLEAN, proven_until TIMESTAMP_NS, first_at TIMESTAMP_NS,"
    " durable_at TIMESTAMP_NS, flags FLAGS,"
    " durable BOOLEAN, replayed BOOLEAN, eligible BOOLEAN, passable BOOLEAN, reason VARCHAR"
)
_KNOWN_EVENTS_DOC = "one row per known event of the slice at T, with its state (§4.2-§4.6)"

_SNAPSHOT_EVENTS_COLUMNS = (
    "pk PK, event_id VARCHAR, min_pos COORD, max_pos COORD, eligible BOOLEAN,"
    " stable BOOLEAN, visible_at TIMESTAMP_NS, always_visible BOOLEAN,"
    " appeared_pos COORD, appeared_at TIMESTAMP_NS, proven_until TIMESTAMP_NS"
)

_LATE_EVENTS_COLUMNS = "pk PK, event_id VARCHAR, position COORD, visible_at TIMESTAMP_NS"

EVENT_LEVEL = Sliced(
    "event_level",
    rows=("receipts", "snapshot"),
    per_slice=EVENTS_PER_SLICE,
    slices=Step(
        "watermarks/receipt_slices",
        table(
            "rc_slices",
            "partition_id VARCHAR, slice INTEGER",
            "one row per partition_id: the slice of the event level it is in",
        ),
        reads=("rc_partitions",),
        params=("slices",),
    ),
    slice=Step(
        "watermarks/slice",
        table(
            "rc_slice",
            "pk PK, scope_id VARCHAR, partition_id VARCHAR",
            "one row per partition of the slice being run",
        ),
        reads=("rc_partitions", "rc_slices"),
        params=("slice",),
    ),
    bounds=Step(
        "watermarks/slice_bounds",
        table(
            "rc_slice_bounds",
            "slice_first VARCHAR, slice_last VARCHAR",
            "one row: the first and last partition_id of the slice being run",
        ),
        reads=("rc_slice",),
    ),
    each=(
        Step(
            "watermarks/snapshot_slice",
            table(
                "rc_snapshot_slice",
                _SNAPSHOT_EVENTS_COLUMNS,
                "one row per snapshot event of the slice visible at T (§4.2); appeared_*:"
                " over its eligible rows that became visible",
            ),
            reads=("rc_partitions", "snapshot"),
            params=("slice_first", "slice_last"),
        ),
        Step(
            "watermarks/several_positions",
            table(
                "rc_several_positions",
                "pk PK, event_id VARCHAR",
                "one row per snapshot event of the slice at several positions",
            ),
            reads=("rc_snapshot_slice",),
        ),
        Step(
            "watermarks/moved_events",
            table(
                "rc_moved",
                "pk PK, event_id VARCHAR, appeared_pos COORD, appeared_at TIMESTAMP_NS",
                "one row per position of a snapshot event at several positions where it"
                " appeared (its first eligible row there became visible): rule late_insert",
            ),
            reads=("snapshot", "rc_partitions", "rc_several_positions"),
            params=("slice_first", "slice_last"),
            only_if="rc_several_positions",
        ),
        Step(
            "watermarks/receipt_events",
            table(
                "rc_receipt_events",
                "pk PK, event_id VARCHAR, sort_pos COORD, first_at TIMESTAMP_NS,"
                " durable_at TIMESTAMP_NS, flags FLAGS",
                "one row per event of the slice with a receipt at T: its receipts aggregated",
            ),
            reads=("receipts",),
            params=("slice_first", "slice_last"),
        ),
        Step(
            "watermarks/known_events",
            table("rc_known_events", _KNOWN_EVENTS_COLUMNS, _KNOWN_EVENTS_DOC),
            reads=("rc_receipt_events", "rc_snapshot_slice"),
            when=("snapshot", True),
        ),
        Step(
            "watermarks/known_events_receipts",
            table("rc_known_events", _KNOWN_EVENTS_COLUMNS, _KNOWN_EVENTS_DOC),
            reads=("rc_receipt_events",),
            when=("snapshot", False),
            view=True,
        ),
    ),
    collect=(
        # first: the slice's snapshot events leave memory once it has run
        Step(
            "watermarks/late_events",
            table(
                "rc_late_events",
                _LATE_EVENTS_COLUMNS,
                "one row per eligible snapshot event that became visible after a won claim of"
                " its partition already covered its position (rule late_insert)",
            ),
            reads=("rc_snapshot_slice", "rc_moved", "rc_late_reach", "rc_slice"),
            lookups=(
                Lookup(
                    "rc_reach_no",
                    table="rc_late_reach",
                    args=("BIGINT", "BIGINT", "TIMESTAMP_NS"),
                    returns="BIGINT",
                    groups=("pk",),
                ),
            ),
        ),
        Step(
            "watermarks/mutated_events",
            table(
                "rc_mutated",
                "pk PK, event_id VARCHAR, sort_pos COORD",
                "one row per known event seen at two positions: its lowest (§4.5)",
            ),
            reads=("rc_known_events",),
        ),
        Step(
            "watermarks/page_receipts",
            table(
                "rc_page_receipts",
                "scope_id VARCHAR, partition_id VARCHAR, page_id VARCHAR, n_receipts BIGINT,"
                " first_at TIMESTAMP_NS, last_at TIMESTAMP_NS, last_pos COORD,"
                " last_event_id VARCHAR, own_min_pos COORD",
                "one row per page with receipts at T: when they came, its last event's"
                " position (and event_id where the slice holds a mutated event)",
            ),
            reads=("rc_page_pass", "receipts", "rc_mutated", "rc_slice"),
            params=("slice_first", "slice_last"),
        ),
        Step(
            "watermarks/page_status",
            table(
                "rc_page_status",
                "pk PK, scope_id VARCHAR, partition_id VARCHAR, page_id VARCHAR,"
                " attempt_id VARCHAR, fetched_at TIMESTAMP_NS, event_count BIGINT,"
                " min_position COORD, max_position COORD, in_range BIGINT,"
                " incomplete BOOLEAN, complete_at TIMESTAMP_NS, n_receipts BIGINT,"
                " first_at TIMESTAMP_NS, last_at TIMESTAMP_NS, own_min_pos COORD, block BLOCK",
                "one row per non-empty page fetched by T of a receipts-evidence partition:"
                " whether it is incomplete and where it blocks (§4.7; the block's event is"
                " named for incomplete pages only)",
            ),
            reads=(
                "pages",
                "rc_partitions",
                "rc_slice",
                "rc_known_events",
                "rc_page_receipts",
                "receipts",
            ),
            params=("slice_first", "slice_last"),
        ),
        Step(
            "watermarks/event_summary",
            table(
                "rc_event_summary",
                "pk PK, event_block BLOCK, event_reason VARCHAR, eligible_events BIGINT,"
                " durable_events BIGINT, replayed_events BIGINT",
                "one row per partition with known events: its first blocking event and"
                " the counts of §6",
            ),
            reads=("rc_known_events",),
        ),
        Step(
            "watermarks/blocking",
            table(
                "rc_blocking",
                "pk PK, scope_id VARCHAR, partition_id VARCHAR, block BLOCK, reason VARCHAR,"
                " eligible_events BIGINT, durable_events BIGINT, replayed_events BIGINT",
                "one row per partition of the slice: its blocking point and why (§4.6-§4.7)",
            ),
            reads=("rc_partitions", "rc_slice", "rc_event_summary", "rc_page_status"),
        ),
        Step(
            "watermarks/committed",
            table(
                "rc_committed",
                "pk PK, committed BLOCK",
                "one row per partition with a committed watermark (§4.6)",
            ),
            reads=("rc_known_events", "rc_blocking"),
        ),
        Step(
            "watermarks/event_waits",
            table(
                "rc_event_waits",
                "pk PK, from_t TIMESTAMP_NS, to_t TIMESTAMP_NS, cert CERT",
                "one row per stretch of time a simple event waits for its durable receipt"
                " and no lower wait of its partition holds: its part in the history",
            ),
            reads=("rc_known_events", "rc_partitions"),
        ),
        Step(
            "watermarks/open_events",
            table(
                "rc_open_events",
                _KNOWN_EVENTS_COLUMNS,
                "one row per known event not settled by its first receipt",
            ),
            reads=("rc_known_events",),
        ),
    ),
)

COUNTING_PAGES = Step(
    "watermarks/counting_pages",
    table(
        "rc_counting_pages",
        "scope_id VARCHAR, partition_id VARCHAR, page_id VARCHAR, request_token VARCHAR,"
        " next_token VARCHAR, fetched_at TIMESTAMP_NS, finality_through COORD,"
        " finality_inclusive BOOLEAN",
        "one row per page fetched by T that lies on a traversal (§4.9)",
    ),
    reads=("pages",),
)

PROVIDER = Step(
    "watermarks/provider",
    table(
        "rc_provider",
        "scope_id VARCHAR, partition_id VARCHAR, provider CERT",
        "one row per partition with a provider certificate at T (§4.9)",
    ),
    reads=("rc_partitions", "rc_counting_pages", "snapshot_bounds"),
)

CLAIMS = Step(
    "watermarks/claims",
    table(
        "rc_claims",
        "scope_id VARCHAR, partition_id VARCHAR, latest CLAIM",
        "one row per partition with a won write at T: the latest (§4.11)",
    ),
    reads=("checkpoints", "rc_scopes"),
)

CERTS = Step(
    "watermarks/partition_certs",
    table(
        "rc_certs",
        "pk PK, scope_id VARCHAR, partition_id VARCHAR, evidence VARCHAR, discrete BOOLEAN,"
        " scope_ordering VARCHAR, block BLOCK, reason VARCHAR, eligible_events BIGINT,"
        " durable_events BIGINT, replayed_events BIGINT, committed BLOCK, consumer CERT,"
        " provider CERT, latest CLAIM, proven CERT, refutation CERT, claim CERT,"
        " claim_status VARCHAR",
        "one row per partition: its state and certificates at T (§4.6-§4.11)",
    ),
    reads=(
        "rc_partitions",
        "rc_scopes",
        "rc_blocking",
        "rc_committed",
        "rc_provider",
        "rc_claims",
    ),
)

WATERMARKS = Step(
    "watermarks/watermarks",
    table(
        "rc_watermarks",
        "as_of TIMESTAMP_NS, scope_id VARCHAR, partition_id VARCHAR, evidence VARCHAR,"
        " committed_position COORD, committed_event_id VARCHAR, blocking_event_id VARCHAR,"
        " blocking_position COORD, blocking_reason VARCHAR, consumer_through COORD,"
        " consumer_inclusive BOOLEAN, provider_through COORD, provider_inclusive BOOLEAN,"
        " proven_through COORD, proven_inclusive BOOLEAN, claimed_through COORD,"
        " claimed_inclusive BOOLEAN, claimed_generation BIGINT, claim_status VARCHAR,"
        " eligible_events BIGINT, durable_events BIGINT, replayed_events BIGINT,"
        " claimed_event_id VARCHAR",
        "the `watermarks` table of §6: one row per partition at T",
        order="scope_id, partition_id",
    ),
    reads=("rc_certs",),
)

STEPS: tuple[Producer, ...] = (
    PARTITION_SCOPES,
    SCOPES,
    PARTITIONS,
    PAGE_PASS,
    EVENT_LEVEL,
    RECEIPT_FAULTS,
    COUNTING_PAGES,
    PROVIDER,
    CLAIMS,
    CERTS,
    WATERMARKS,
)
GUARDS = (PARTITION_KEYS,)
