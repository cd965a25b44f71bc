"""Each partition's certificates over time: the step functions the frontier
history, the audit's "at its written_at" rules and the timelines are built from.

The pieces that hold still between changes are tables (``rc_event_segments``,
``rc_records``, ``rc_page_windows``, ``rc_provider_steps``, ``rc_claim_steps``), and
so is a page's block while its receipts come, step by step (``rc_moving_steps``, for
every page: the Spark engine's buckets make it; the frontier takes only the pages that
can hold it, :mod:`reconcile.engine.steps.frontier`).
Certificates at given instants are computed by one exact evaluator,
:func:`evaluate_points`, a template instantiated once per set of points (a won
write's instant, a change point of a timeline, a point a notebook asks about); it
finds each point's least event blocker with a segment tree over the points' instants
(:mod:`reconcile.engine.steps.tree`), never by pairing every point with every blocker.
"""

from __future__ import annotations

from reconcile.engine.declare import Input, Lookup, Producer, Step, table
from reconcile.engine.steps.tree import INTERVALS, segment_tree_minimum

MUTATIONS = Step(
    "history/mutations",
    table(
        "rc_mutations",
        "scope_id VARCHAR, partition_id VARCHAR, event_id VARCHAR,"
        ' sightings STRUCT("position" COORD, seen_at TIMESTAMP_NS)[], pages VARCHAR[]',
        "one row per event mutated at T: every position it was seen at, and when (§4.5),"
        " and the pages its receipts came on",
    ),
    reads=("rc_partitions", "rc_mutated", "receipts", "snapshot"),
)

EVENT_SEGMENTS = Step(
    "history/event_segments",
    table(
        "rc_event_segments",
        "scope_id VARCHAR, partition_id VARCHAR, from_t TIMESTAMP_NS, to_t TIMESTAMP_NS, cert CERT",
        "one row per stretch of time [from_t, to_t) an event blocks, with the"
        " certificate it imposes; a stretch where a lower one of the partition holds"
        " may be left out (every reader takes the least in force)",
    ),
    reads=(
        "rc_partitions",
        "rc_open_events",
        "rc_mutations",
        "rc_receipt_faults",
        "rc_event_waits",
    ),
)

RECORDS = Step(
    "history/records",
    table(
        "rc_records",
        "scope_id VARCHAR, partition_id VARCHAR, until_t TIMESTAMP_NS, cert CERT",
        "snapshot evidence: the prefix of events visible from the start, as a step"
        " function (the certificate until until_t)",
    ),
    reads=("rc_partitions", "rc_open_events"),
)

PAGE_WINDOWS = Step(
    "history/page_windows",
    table(
        "rc_page_windows",
        "scope_id VARCHAR, partition_id VARCHAR, page_id VARCHAR, discrete BOOLEAN,"
        " fetched_at TIMESTAMP_NS, complete_at TIMESTAMP_NS, min_position COORD,"
        " first_own_at TIMESTAMP_NS, last_own_at TIMESTAMP_NS, own_min_pos COORD,"
        " tail_pos COORD, end_t TIMESTAMP_NS, outlives_next BOOLEAN, mutable BOOLEAN",
        "one row per page of rc_page_status: the window of time it blocks in (§4.7),"
        " complete once its event_count-th event came to lie in its range; a mutable"
        " page (a receipt on it is of an event mutated at T) moves until end_t"
        " (last_own_at is end_t), and its tail_pos bounds its block from above",
    ),
    reads=("rc_partitions", "rc_page_status", "rc_mutations", "receipts"),
)

MUTABLE_BLOCKS = Step(
    "history/mutable_blocks",
    table(
        "rc_mutable_blocks",
        "scope_id VARCHAR, partition_id VARCHAR, page_id VARCHAR, changed_at TIMESTAMP_NS,"
        " last_event EVENT",
        "one row per mutable page of rc_page_windows and instant its block can change,"
        " from its first receipt on: the last event (in order at that instant, §4.5)"
        " received on it by then (§4.7)",
        transient=True,
    ),
    reads=("receipts", "rc_mutated", "rc_mutations", "rc_page_windows"),
)

MOVING_STEPS = Step(
    "history/moving_steps",
    table(
        "rc_moving_steps",
        "scope_id VARCHAR, partition_id VARCHAR, page_id VARCHAR, from_t TIMESTAMP_NS,"
        " to_t TIMESTAMP_NS, cert CERT",
        "the block of each page being handled, one row per stretch of time it holds one"
        " value, between the page's first receipt and its last (§4.7)",
        transient=True,
    ),
    reads=("receipts", "rc_mutable_blocks", "rc_page_windows"),
)

PROVIDER_STEPS = Step(
    "history/provider_steps",
    table(
        "rc_provider_steps",
        "scope_id VARCHAR, partition_id VARCHAR, from_t TIMESTAMP_NS, cert CERT",
        "the provider certificate as a step function: its value from from_t on (§4.9)",
    ),
    reads=("rc_partitions", "rc_counting_pages", "snapshot_bounds"),
)

CLAIM_STEPS = Step(
    "history/claim_steps",
    table(
        "rc_claim_steps",
        "scope_id VARCHAR, partition_id VARCHAR, from_t TIMESTAMP_NS,"
        " latest STRUCT(watermark COORD, inclusive BOOLEAN, generation BIGINT,"
        " attempt_id VARCHAR, ordering VARCHAR)",
        "the claim as a step function: the latest won write from from_t on (§4.11)",
    ),
    reads=("checkpoints", "rc_scopes"),
)

POINTS_COLUMNS = "point_id BIGINT, scope_id VARCHAR, partition_id VARCHAR, t TIMESTAMP_NS"


def evaluate_points(prefix: str, points: str, receipts: str = "receipts") -> tuple[Step, ...]:
    """The exact evaluator on the points of table ``points`` (POINTS_COLUMNS at
    least): each point's certificates at its instant, into ``rc_<prefix>_point_certs``.
    ``receipts``: the table its pages' receipts are read from (every receipt, or those
    of the points' partitions alone)."""
    pages = f"rc_{prefix}_point_pages"
    moving = f"rc_{prefix}_moving_receipts"
    order = f"rc_{prefix}_point_order"
    blockers = f"rc_{prefix}_events_tree_in"
    least = f"rc_{prefix}_events_tree_out"
    return (
        # the least event blocker at each point: a segment tree over the points'
        # instants, partition by partition
        Step(
            "history/point_order",
            table(
                order,
                "grp VARCHAR, idx BIGINT, scope_id VARCHAR, partition_id VARCHAR, t TIMESTAMP_NS",
                "one row per partition and instant of a point, numbered partition by"
                " partition in time order",
                transient=True,
            ),
            reads=(points,),
            bind=(("rc_points", points),),
        ),
        Step(
            "history/point_event_segments",
            table(
                blockers,
                INTERVALS,
                "one row per event blocker of a partition with points: the points'"
                " instants it blocks at",
                transient=True,
            ),
            reads=("rc_event_segments", order),
            bind=(("rc_point_order", order),),
            lookups=(
                Lookup(
                    "rc_point_span",
                    table=order,
                    args=("BIGINT", "BIGINT", "TIMESTAMP_NS", "TIMESTAMP_NS"),
                    returns="STRUCT(lo BIGINT, hi BIGINT)",
                    groups=("scope_id", "partition_id"),
                ),
            ),
        ),
        *segment_tree_minimum(f"{prefix}_events", blockers, order),
        Step(
            "history/point_pages",
            table(
                pages,
                "point_id BIGINT, scope_id VARCHAR, partition_id VARCHAR, page_id VARCHAR,"
                " t TIMESTAMP_NS, discrete BOOLEAN, cert CERT, moving BOOLEAN",
                "one row per point and page window active at its instant, with its block",
                transient=True,
            ),
            reads=("rc_page_windows", points),
            bind=(("rc_points", points),),
        ),
        Step(
            "history/moving_receipts",
            table(
                moving,
                "scope_id VARCHAR, page_id VARCHAR, recorded_at TIMESTAMP_NS, last_pos COORD",
                "one row per receipt of a page some point lies inside of while it moves:"
                " the position of the page's last event so far",
                transient=True,
            ),
            reads=(receipts, "rc_mutable_blocks", pages),
            bind=(("rc_point_pages", pages),)
            + ((("receipts", receipts),) if receipts != "receipts" else ()),
        ),
        Step(
            "history/point_certs",
            table(
                f"rc_{prefix}_point_certs",
                "point_id BIGINT, scope_id VARCHAR, partition_id VARCHAR, t TIMESTAMP_NS,"
                " consumer CERT, provider CERT, proven CERT, refutation CERT, claim CERT,"
                " claim_watermark COORD, claim_inclusive BOOLEAN, claim_generation BIGINT,"
                " claim_attempt_id VARCHAR, claim_incomparable BOOLEAN",
                "one row per point: its certificates at its instant (§4.8-§4.11)",
                transient=True,
            ),
            reads=(
                "rc_scopes",
                "rc_partitions",
                "rc_claim_steps",
                "rc_records",
                "rc_provider_steps",
                points,
                pages,
                moving,
                order,
                least,
            ),
            bind=(
                ("rc_points", points),
                ("rc_point_pages", pages),
                ("rc_moving_receipts", moving),
                ("rc_point_order", order),
                ("rc_point_events", least),
            ),
        ),
    )


# The timelines: the partitions asked for (SELECTED), their change points, and
# their certificates as step functions (TIMELINES).
SELECTED = Input(
    table(
        "rc_selected",
        "scope_id VARCHAR, partition_id VARCHAR",
        "one row per partition whose timeline is asked for (Analysis.history)",
    )
)

SELECTED_RECEIPTS = Step(
    "history/selected_receipts",
    table(
        "rc_selected_receipts",
        "scope_id VARCHAR, partition_id VARCHAR, page_id VARCHAR, position COORD,"
        " recorded_at TIMESTAMP_NS",
        "one row per receipt counted at T of a selected partition: one scan of receipts"
        " for the timelines",
        transient=True,
    ),
    reads=("receipts", "rc_selected"),
)

CHANGE_POINTS = Step(
    "history/change_points",
    table(
        "rc_history_points",
        POINTS_COLUMNS,
        "one row per instant a selected partition's certificates can change",
        transient=True,
    ),
    reads=(
        "rc_selected",
        "rc_claim_steps",
        "rc_provider_steps",
        "rc_event_segments",
        "rc_records",
        "rc_page_windows",
        "rc_mutations",
        "rc_selected_receipts",
    ),
    bind=(("receipts", "rc_selected_receipts"),),
)

HISTORY_POINTS = evaluate_points("history", "rc_history_points", "rc_selected_receipts")

TIMELINES = Step(
    "history/steps",
    table(
        "rc_timelines",
        "scope_id VARCHAR, partition_id VARCHAR, basis VARCHAR, valid_from TIMESTAMP_NS,"
        " through COORD, inclusive BOOLEAN, generation BIGINT",
        "one row per selected partition, basis and instant its certificate changes",
        order="scope_id, partition_id, basis, valid_from NULLS FIRST",
    ),
    reads=("rc_history_point_certs",),
    bind=(("rc_point_certs", "rc_history_point_certs"),),
)

# Certificates at the points a caller asks about (Analysis.certificates_at).
ASKED = Input(
    table(
        "rc_asked_points",
        POINTS_COLUMNS,
        "one row per point a caller asks about (Analysis.certificates_at)",
    )
)

ASKED_POINTS = evaluate_points("asked", "rc_asked_points")

ASKED_CERTIFICATES = Step(
    "history/point_frame",
    table(
        "rc_asked_certificates",
        "point_id BIGINT, scope_id VARCHAR, partition_id VARCHAR, t TIMESTAMP_NS,"
        " consumer_through COORD, consumer_inclusive BOOLEAN, provider_through COORD,"
        " provider_inclusive BOOLEAN, proven_through COORD, proven_inclusive BOOLEAN,"
        " refutation_through COORD, refutation_inclusive BOOLEAN, claimed_through COORD,"
        " claimed_inclusive BOOLEAN, claimed_generation BIGINT",
        "one row per asked point: its certificates as through/inclusive columns",
        order="point_id",
    ),
    reads=("rc_asked_point_certs",),
    bind=(("rc_point_certs", "rc_asked_point_certs"),),
)

STEPS: tuple[Producer, ...] = (
    MUTATIONS,
    EVENT_SEGMENTS,
    RECORDS,
    PAGE_WINDOWS,
    MUTABLE_BLOCKS,
    MOVING_STEPS,
    PROVIDER_STEPS,
    CLAIM_STEPS,
    SELECTED,
    SELECTED_RECEIPTS,
    CHANGE_POINTS,
    *HISTORY_POINTS,
    TIMELINES,
    ASKED,
    *ASKED_POINTS,
    ASKED_CERTIFICATES,
)
