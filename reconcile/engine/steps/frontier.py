"""Membership and the merged frontier (docs/contract.md §4.12-§4.15).

The frontier at T (``rc_frontiers``) comes from each partition's certificates at T.
Its history (``rc_frontier_history``) is the frontier at every instant of §4.15;
cost stays near O((C + S) log C) for C instants and S steps of the partitions'
certificates, never instants × partitions:

* the claimed basis is the minimum of each member's claim, a step function that
  changes only at its own won writes: a segment tree over instant numbers
  (:func:`instant_minimum`) gives the minimum at every instant, running sums
  the counts of members without a claim, with an unknown endpoint or in another
  ordering;
* the proven basis is the minimum over members of min(consumer, provider), each
  part a step function: provider certificates, event blockers, the snapshot
  prefix, pages before their first and after their last receipt, and in between
  the page's block step by step as its receipts come. All go into the same tree,
  whose minimum is the proven frontier (``rc_proven_min``). The steps of a page
  while its receipts come are about as many as the receipts, and most lie far above
  the frontier: a first tree, with each such page's greatest block in place of its
  steps (``rc_bound_min``), bounds the frontier from above at every instant, and
  only the pages whose least block reaches that bound somewhere in their window
  (``rc_contending_pages``) bring their steps (``rc_contending_steps``, made from
  those pages' receipts alone, or, in a phase that reads no receipts, taken from
  every page's steps, ``rc_moving_steps``, that the buckets made). A step left out
  lies above the frontier wherever it holds: it sets no value and holds no limiting
  partition.
"""

from __future__ import annotations

from reconcile.engine.declare import Lookup, Producer, Step, Table, Union, table
from reconcile.engine.steps import history
from reconcile.engine.steps.tree import INTERVALS, segment_tree_minimum

EPOCHS = Step(
    "frontier/epochs",
    table(
        "rc_epochs",
        "scope_id VARCHAR, epoch BIGINT, effective_at TIMESTAMP_NS, cutover CERT,"
        " cutover_unknown BOOLEAN, cutover_through COORD, cutover_inclusive BOOLEAN,"
        " discrete BOOLEAN, declared BOOLEAN",
        "one row per epoch of each scope (epoch 1 from the start without `epochs` rows)",
    ),
    reads=("rc_scopes", "epochs"),
)

MEMBERS = Step(
    "frontier/members",
    table(
        "rc_members",
        "scope_id VARCHAR, epoch BIGINT, partition_id VARCHAR, role VARCHAR,"
        " coverage_from COORD, seal CERT, seal_unknown BOOLEAN",
        "one row per partition of an epoch, with its role and proofs (§3)",
    ),
    reads=("rc_scopes", "rc_partitions", "epochs", "members"),
)

CHANGES = Step(
    "frontier/changes",
    table(
        "rc_changes",
        "scope_id VARCHAR, epoch BIGINT, partition_id VARCHAR, change VARCHAR, cutover CERT,"
        " cutover_unknown BOOLEAN, proved_in BIGINT",
        "one row per change of membership between consecutive epochs, with the epoch"
        " its proof first stands in (§4.13)",
    ),
    reads=("rc_epochs", "rc_members"),
)

EPOCH_STATUS = Step(
    "frontier/epoch_status",
    table(
        "rc_epoch_status",
        "scope_id VARCHAR, epoch BIGINT, effective_at TIMESTAMP_NS, cutover CERT,"
        " cutover_unknown BOOLEAN, cutover_through COORD, cutover_inclusive BOOLEAN,"
        " discrete BOOLEAN, declared BOOLEAN, proven BOOLEAN, members BIGINT",
        "one row per epoch: whether it is proven, how many members it has (§4.13)",
    ),
    reads=("rc_epochs", "rc_members", "rc_changes"),
)

IN_FORCE = Step(
    "frontier/in_force",
    table(
        "rc_in_force",
        "scope_id VARCHAR, epoch BIGINT, proven BOOLEAN, members BIGINT",
        "one row per scope: the epoch in force at T, if any (§4.12)",
    ),
    reads=("rc_scopes", "rc_epoch_status"),
)

FRONTIERS = Step(
    "frontier/frontiers",
    table(
        "rc_frontiers",
        "as_of TIMESTAMP_NS, scope_id VARCHAR, basis VARCHAR, epoch BIGINT, kind VARCHAR,"
        " frontier COORD, frontier_inclusive BOOLEAN, limiting_partitions VARCHAR[],"
        " reasons VARCHAR[], members BIGINT,"
        " vector STRUCT(partition_id VARCHAR, through COORD, inclusive BOOLEAN)[]",
        "the `frontiers` table of §6: one row per scope and basis at T",
        order="scope_id, basis",
    ),
    reads=("rc_certs", "rc_in_force", "rc_members"),
)

# The frontier history.
INSTANTS = Step(
    "frontier/instants",
    table(
        "rc_instants",
        "scope_id VARCHAR, t TIMESTAMP_NS, idx BIGINT, history BOOLEAN, epoch BIGINT,"
        " proven BOOLEAN, members BIGINT",
        "one row per instant of §4.15 (history) or that a rule asks about, numbered"
        " (idx) across scopes, with the epoch in force",
    ),
    reads=("checkpoints", "epochs", "published", "rc_epochs", "rc_epoch_status"),
)

MEMBER_SPANS = Step(
    "frontier/member_spans",
    table(
        "rc_member_spans",
        "scope_id VARCHAR, partition_id VARCHAR, lo BIGINT, hi BIGINT",
        "one row per stretch of instants [lo, hi) a partition is a member in force"
        " (the spans of consecutive epochs it is a member of, as one)",
    ),
    reads=("rc_instants", "rc_members"),
)

TREE_POINTS = Step(
    "frontier/tree_points",
    table(
        "rc_tree_points",
        "grp VARCHAR, idx BIGINT",
        "every instant, as a point of the segment trees",
    ),
    reads=("rc_instants",),
)

_MINIMUM = "scope_id VARCHAR, idx BIGINT, v CERT"


def instant_minimum(
    name: str, intervals: str, reads: tuple[str, ...], out: Table
) -> tuple[Step, ...]:
    """A segment tree over instant numbers (:mod:`reconcile.engine.steps.tree`): the
    least value of the intervals the query ``intervals`` gives (grp = scope,
    [lo, hi), v) at every instant, into ``out``."""
    into = f"rc_{name}_tree_in"
    return (
        Step(
            intervals,
            table(into, INTERVALS, "the intervals of the tree's minimum", transient=True),
            reads=reads,
            # as many rows as the segments, read once by the tree: not copied
            view=True,
        ),
        *segment_tree_minimum(name, into, "rc_tree_points"),
        Step(
            "frontier/tree_out",
            out,
            reads=(f"rc_{name}_tree_out",),
            bind=(("rc_tree_out", f"rc_{name}_tree_out"),),
        ),
    )


def _frontier_at(basis: str) -> Step:
    return Step(
        "frontier/frontier_at",
        table(
            f"rc_{basis}_frontier_at",
            "scope_id VARCHAR, basis VARCHAR, idx BIGINT, t TIMESTAMP_NS, history BOOLEAN,"
            " epoch BIGINT, kind VARCHAR, frontier CERT",
            f"the {basis} frontier at every instant of rc_instants",
        ),
        reads=("rc_instants", f"rc_{basis}_counts", f"rc_{basis}_min"),
        fixed=(("basis", basis),),
        bind=(("rc_hist_counts", f"rc_{basis}_counts"), ("rc_hist_min", f"rc_{basis}_min")),
    )


_HISTORY_ROWS = (
    "scope_id VARCHAR, basis VARCHAR, at TIMESTAMP_NS, epoch BIGINT, kind VARCHAR,"
    " frontier COORD, frontier_inclusive BOOLEAN, limiting_partitions VARCHAR[],"
    " trigger_partition_id VARCHAR, trigger_generation BIGINT, idx BIGINT"
)


def _history_rows(basis: str) -> Step:
    return Step(
        "frontier/history_rows",
        table(
            f"rc_{basis}_history",
            _HISTORY_ROWS,
            f"the {basis} rows of the `frontier_history` table of §6",
        ),
        reads=("checkpoints", f"rc_{basis}_frontier_at", f"rc_{basis}_holders"),
        fixed=(("basis", basis),),
        bind=(
            ("rc_frontier_at", f"rc_{basis}_frontier_at"),
            ("rc_hist_holders", f"rc_{basis}_holders"),
        ),
    )


_HOLDERS = "scope_id VARCHAR, partition_id VARCHAR, lo BIGINT, hi BIGINT, v CERT"

# The claimed basis.
CLAIM_SEGMENTS = Step(
    "frontier/claim_segments",
    table(
        "rc_claim_segments",
        "scope_id VARCHAR, partition_id VARCHAR, lo BIGINT, hi BIGINT, v CERT,"
        " unknown BOOLEAN, incomparable BOOLEAN",
        "one row per stretch of instants a member's claim holds",
    ),
    reads=("rc_scopes", "rc_partitions", "rc_claim_steps", "rc_instants", "rc_member_spans"),
)

CLAIMED: tuple[Producer, ...] = (
    CLAIM_SEGMENTS,
    *instant_minimum(
        "claimed",
        "frontier/tree_in_claimed",
        ("rc_claim_segments",),
        table("rc_claimed_min", _MINIMUM, "the least claim of the members at every instant"),
    ),
    Step(
        "frontier/claim_counts",
        table(
            "rc_claimed_counts",
            "scope_id VARCHAR, idx BIGINT, no_cert HUGEINT, unknown HUGEINT, incomparable HUGEINT",
            "per instant: members without a claim, with an unknown endpoint, in another ordering",
        ),
        reads=("rc_claim_segments", "rc_instants"),
    ),
    Step(
        "frontier/claimed_holders",
        table(
            "rc_claimed_holders",
            _HOLDERS,
            "claims that hold the claimed frontier where their value is its value",
        ),
        reads=("rc_claim_segments",),
    ),
    _frontier_at("claimed"),
    _history_rows("claimed"),
)

# A time's instant number (the first instant at or after it), by a search in the
# instants' times: the proven segments are about as many as the receipts.
INSTANT_NO = Lookup(
    "rc_instant_no",
    table="rc_instants",
    args=("BIGINT", "BIGINT", "TIMESTAMP_NS"),
    returns="BIGINT",
    groups=("scope_id",),
)
# An interval's two ends at once (STRUCT(lo, hi)): one call of the search, not two.
INSTANT_SPAN = Lookup(
    "rc_instant_span",
    table="rc_instants",
    args=("BIGINT", "BIGINT", "TIMESTAMP_NS", "TIMESTAMP_NS"),
    returns="STRUCT(lo BIGINT, hi BIGINT)",
    groups=("scope_id",),
)

# The proven basis.
BASE_SEGMENTS = Step(
    "frontier/base_segments",
    table(
        "rc_base_segments",
        "scope_id VARCHAR, partition_id VARCHAR, lo BIGINT, hi BIGINT, v CERT, part VARCHAR",
        "one row per stretch of instants a part of a member's proven certificate holds"
        " one value, but for the blocks of pages while their receipts come",
    ),
    reads=(
        "rc_partitions",
        "rc_instants",
        "rc_member_spans",
        "rc_event_segments",
        "rc_records",
        "rc_page_windows",
        "rc_provider_steps",
    ),
    lookups=(INSTANT_NO, INSTANT_SPAN),
)

RECEIVING_WINDOWS = Step(
    "frontier/receiving_windows",
    table(
        "rc_receiving_windows",
        "scope_id VARCHAR, partition_id VARCHAR, page_id VARCHAR, lo BIGINT, hi BIGINT,"
        " low CERT, high CERT",
        "one row per page and stretch of instants while its receipts come, a member's:"
        " the least and the greatest block it takes there",
        transient=True,
    ),
    reads=("rc_instants", "rc_member_spans", "rc_page_windows"),
    lookups=(INSTANT_SPAN,),
)

BOUND_MIN = instant_minimum(
    "bound",
    "frontier/tree_in_bound",
    ("rc_base_segments", "rc_receiving_windows"),
    table(
        "rc_bound_min",
        _MINIMUM,
        "per instant, a bound from above on the proven frontier's least value",
        transient=True,
    ),
)

CONTENDING_PAGES = Step(
    "frontier/contending_pages",
    table(
        "rc_contending_pages",
        "scope_id VARCHAR, partition_id VARCHAR, page_id VARCHAR",
        "one row per page whose block, while its receipts come, can hold the proven"
        " frontier: at or below the bound at some instant of its window",
        transient=True,
    ),
    reads=("rc_bound_min", "rc_receiving_windows"),
)

CONTENDING_WINDOWS = Step(
    "frontier/contending_windows",
    Table(
        "rc_contending_windows",
        history.PAGE_WINDOWS.produces.columns,
        "the rows of rc_page_windows of the pages of rc_contending_pages",
        transient=True,
    ),
    reads=("rc_page_windows", "rc_contending_pages"),
    view=True,
)

_CONTENDING_STEPS = Table(
    "rc_contending_steps",
    history.MOVING_STEPS.produces.columns,
    "the steps of a page's block while its receipts come (as in rc_moving_steps), for"
    " the pages of rc_contending_pages",
    transient=True,
)

# Made from the receipts of those pages alone: the query of history/moving_steps on
# their windows.
CONTENDING_STEPS = Step(
    "history/moving_steps",
    _CONTENDING_STEPS,
    reads=("receipts", "rc_mutable_blocks", "rc_contending_windows"),
    bind=(("rc_page_windows", "rc_contending_windows"),),
)

# Where the scope's task reads no receipts (the Spark engine's scope phase): from
# every page's steps, which the buckets of partitions computed (rc_moving_steps).
CONTENDING_STEPS_GIVEN = Step(
    "frontier/contending_steps",
    _CONTENDING_STEPS,
    reads=("rc_moving_steps", "rc_contending_pages"),
    fallback=True,
)

RECEIVING_SEGMENTS = Step(
    "frontier/receiving_segments",
    table(
        "rc_receiving_segments",
        "scope_id VARCHAR, partition_id VARCHAR, lo BIGINT, hi BIGINT, v CERT, part VARCHAR",
        "one row per stretch of instants a page's block holds between two of its receipts"
        " (part 'receiving'), for the pages of rc_contending_pages, a member's",
    ),
    reads=("rc_instants", "rc_member_spans", "rc_contending_steps"),
    lookups=(INSTANT_SPAN,),
)

# A view: rc_base_segments is about as long as the receipts (under snapshot evidence,
# one event blocker per event), and copied it cost a pass of its own (13 s at 100 M).
PROVEN_SEGMENTS = Step(
    "frontier/proven_segments",
    table(
        "rc_proven_segments",
        "scope_id VARCHAR, partition_id VARCHAR, lo BIGINT, hi BIGINT, v CERT, part VARCHAR",
        "one row per stretch of instants a part of a member's proven certificate holds"
        " one value (part 'receiving': a page's block between two of its receipts, for"
        " the pages of rc_contending_pages)",
    ),
    reads=("rc_base_segments", "rc_receiving_segments"),
    view=True,
)

PROVEN_MIN = instant_minimum(
    "proven",
    "frontier/tree_in_proven",
    ("rc_proven_segments",),
    table("rc_proven_min", _MINIMUM, "the proven frontier's least value per instant"),
)

PROVEN: tuple[Producer, ...] = (
    BASE_SEGMENTS,
    RECEIVING_WINDOWS,
    *BOUND_MIN,
    CONTENDING_PAGES,
    CONTENDING_WINDOWS,
    CONTENDING_STEPS,
    CONTENDING_STEPS_GIVEN,
    RECEIVING_SEGMENTS,
    PROVEN_SEGMENTS,
    *PROVEN_MIN,
    Step(
        "frontier/proven_counts",
        table(
            "rc_proven_counts",
            "scope_id VARCHAR, idx BIGINT, no_cert HUGEINT, unknown BIGINT, incomparable BIGINT",
            "per instant: members without a proven certificate, and (as rc_claimed_counts)"
            " with a claim whose endpoint is unknown or in another ordering",
        ),
        reads=("rc_proven_segments", "rc_instants", "rc_claimed_counts"),
    ),
    Step(
        "frontier/proven_holders",
        table(
            "rc_proven_holders",
            _HOLDERS,
            "certificates that hold the proven frontier where their value is its value",
        ),
        reads=("rc_proven_segments",),
        # about as many rows as the receipts, read once: not copied
        view=True,
    ),
    _frontier_at("proven"),
    _history_rows("proven"),
)

FRONTIER_AT = Union(
    table(
        "rc_frontier_at",
        "scope_id VARCHAR, basis VARCHAR, idx BIGINT, t TIMESTAMP_NS, history BOOLEAN,"
        " epoch BIGINT, kind VARCHAR, frontier CERT",
        "the frontier on both bases at every instant of rc_instants",
    ),
    parts=("rc_claimed_frontier_at", "rc_proven_frontier_at"),
)

FRONTIER_HISTORY = Union(
    table(
        "rc_frontier_history",
        _HISTORY_ROWS,
        "the `frontier_history` table of §6, both bases (idx: the instant's number)",
        order="scope_id, basis, idx",
    ),
    parts=("rc_claimed_history", "rc_proven_history"),
)

STEPS: tuple[Producer, ...] = (
    EPOCHS,
    MEMBERS,
    CHANGES,
    EPOCH_STATUS,
    IN_FORCE,
    FRONTIERS,
    INSTANTS,
    MEMBER_SPANS,
    TREE_POINTS,
    *CLAIMED,
    *PROVEN,
    FRONTIER_AT,
    FRONTIER_HISTORY,
)
GUARDS: tuple[()] = ()
