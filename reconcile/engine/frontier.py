"""Frontier history (CONTRACT.md §4.15): the frontier on both bases at every instant.

Cost stays near O((C + S) log C) for C instants and S steps of the partitions'
certificates, never instants × partitions:

* the claimed basis is the minimum of each member's claim, a step function that
  changes only at its own won writes: a segment tree over instant numbers gives
  the minimum at every instant (``sql/tree``), running sums the counts of members
  without a claim, with an unknown endpoint or in another ordering;
* the proven basis is the minimum over members of min(consumer, provider). Its
  parts that hold still between changes (provider certificates, event blockers,
  the snapshot prefix, pages before their first and after their last receipt) go
  into the same tree; only pages whose block climbs receipt by receipt can go
  lower, and only where their lowest possible block is not above that minimum.
  Those few points are evaluated exactly, by the same evaluator as
  :meth:`Analysis.certificates_at`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl
import pyarrow as pa

from reconcile.errors import ReconcileError
from reconcile.sql import load

if TYPE_CHECKING:
    from reconcile.engine.analysis import Analysis

HISTORY_FRONTIER_STEPS: tuple[tuple[str, str], ...] = (
    ("rc_instants", "frontier/instants"),
    ("rc_member_spans", "frontier/member_spans"),
)


def _table(analysis: Analysis, table: str, query: str) -> None:
    analysis.build(table, query, again=True)


def _tree(analysis: Analysis, intervals: str, out: str) -> None:
    """rc_tree_in from ``intervals``, then the minimum at every instant into ``out``."""
    _table(analysis, "rc_tree_in", intervals)
    _table(analysis, "rc_tree_points", "frontier/tree_points")
    _table(analysis, "rc_tree_nodes", "tree/nodes")
    _table(analysis, "rc_tree_out", "tree/query")
    _table(analysis, out, "frontier/tree_out")


def _rows(analysis: Analysis, basis: str) -> pl.DataFrame:
    sql = load("frontier/frontier_at")
    with analysis.timed("frontier/frontier_at"):
        analysis.con.execute(
            "CREATE TEMP TABLE IF NOT EXISTS rc_frontier_at AS SELECT * FROM ("
            + sql
            + ") WHERE false",
            {"basis": basis},
        )
        analysis.con.execute("DELETE FROM rc_frontier_at WHERE basis = $basis", {"basis": basis})
        analysis.con.execute("INSERT INTO rc_frontier_at " + sql, {"basis": basis})
    sql = load("frontier/history_rows")
    with analysis.timed("frontier/history_rows"):
        result = analysis.con.sql(sql, params={"basis": basis}).to_arrow_table()
    frame = pl.from_arrow(result)
    assert isinstance(frame, pl.DataFrame)
    return frame


def claimed_history(analysis: Analysis) -> pl.DataFrame:
    _table(analysis, "rc_claim_segments", "frontier/claim_segments")
    _tree(analysis, "frontier/tree_in_claimed", "rc_hist_min")
    _table(analysis, "rc_hist_counts", "frontier/claim_counts")
    _table(analysis, "rc_hist_holders", "frontier/claimed_holders")
    return _rows(analysis, "claimed")


# The tables the exact points of a scope's partitions need of the scope: its
# instants, its members' spans, and the runs of what holds still (rc_fx_pieces).
PROVEN_CONTEXT: tuple[str, ...] = ("rc_instants", "rc_member_spans", "rc_fx_pieces")

# The candidate points' exact certificates (rc_exact), when evaluated elsewhere
# (Analysis.preset), with the partitions they were evaluated for (EXACT_PARTITIONS):
# every partition of the scope must be among those.
EXACT = "rc_exact"
EXACT_PARTITIONS = "rc_exact_partitions"


def _fx(analysis: Analysis) -> None:
    """rc_proven_segments, and the exact minimum of what holds still (rc_fx) and its
    runs (rc_fx_pieces)."""
    _table(analysis, "rc_proven_segments", "frontier/proven_segments")
    _tree(analysis, "frontier/tree_in_proven", "rc_fx")
    _table(analysis, "rc_fx_pieces", "frontier/fx_pieces")


def _exact(analysis: Analysis) -> None:
    """rc_exact: the candidate points (given rc_proven_segments and rc_fx_pieces),
    evaluated exactly."""
    _table(analysis, "rc_candidates", "frontier/candidates")
    _table(analysis, "rc_candidate_points", "frontier/candidate_points")
    analysis.con.execute(
        "CREATE OR REPLACE TEMP TABLE rc_points AS"
        " SELECT point_id, scope_id, partition_id, t FROM rc_candidate_points"
    )
    analysis.evaluate_points()
    _table(analysis, EXACT, "frontier/exact_points")


def _check_exact(analysis: Analysis) -> None:
    """Given rc_exact, every partition must have been evaluated: a partition left
    out would count as no lower value, a silent overclaim."""
    if not analysis.given(EXACT_PARTITIONS):
        raise ReconcileError(f"{EXACT} is given without {EXACT_PARTITIONS}")
    missing = analysis.con.execute(
        "SELECT count(*) FROM rc_partitions AS p"
        f" ANTI JOIN {EXACT_PARTITIONS} AS e USING (scope_id, partition_id)"
    ).fetchall()[0][0]
    if missing:
        raise ReconcileError(
            f"the proven frontier's exact points of {missing} partition(s) were not"
            " evaluated (the engine's fault: please report it)"
        )


def proven_history(analysis: Analysis) -> pl.DataFrame:
    _fx(analysis)
    if analysis.given(EXACT):
        _check_exact(analysis)
    else:
        _exact(analysis)
    _table(analysis, "rc_hist_min", "frontier/proven_min")
    _table(analysis, "rc_hist_counts", "frontier/proven_counts")
    _table(analysis, "rc_hist_holders", "frontier/proven_holders")
    return _rows(analysis, "proven")


def _arrow(analysis: Analysis, tables: tuple[str, ...]) -> dict[str, pa.Table]:
    return {t: analysis.con.sql(f"FROM {t}").to_arrow_table() for t in tables}


def proven_context(analysis: Analysis) -> dict[str, pa.Table]:
    """What the exact points of the scopes' partitions need of the scopes
    (PROVEN_CONTEXT): with it and their partition phase, :func:`exact_points` runs
    on any split of the partitions."""
    analysis.frontiers()
    analysis.prepare_history()
    analysis.run(HISTORY_FRONTIER_STEPS)
    _fx(analysis)
    return _arrow(analysis, PROVEN_CONTEXT)


def exact_points(analysis: Analysis) -> dict[str, pa.Table]:
    """rc_exact of the analysis' partitions, given their scopes' PROVEN_CONTEXT,
    and the partitions it covers (EXACT_PARTITIONS)."""
    missing = [t for t in PROVEN_CONTEXT if not analysis.given(t)]
    if missing:
        raise ReconcileError(f"exact points need {', '.join(missing)} given")
    analysis.prepare_history()
    _table(analysis, "rc_proven_segments", "frontier/proven_segments")
    _exact(analysis)
    analysis.con.execute(
        f"CREATE OR REPLACE TEMP TABLE {EXACT_PARTITIONS} AS"
        " SELECT scope_id, partition_id FROM rc_partitions"
    )
    return _arrow(analysis, (EXACT, EXACT_PARTITIONS))


def frontier_history(analysis: Analysis) -> pl.DataFrame:
    """The `frontier_history` table of CONTRACT.md §6, both bases.

    Also leaves ``rc_frontier_at``: the frontier of both bases at every instant of
    ``rc_instants``, publications and the instants before epoch changes included.
    """
    analysis.frontiers()
    analysis.con.execute("DROP TABLE IF EXISTS rc_frontier_at")
    analysis.prepare_history()
    analysis.run(HISTORY_FRONTIER_STEPS)
    claimed = claimed_history(analysis)
    proven = proven_history(analysis)
    return pl.concat([claimed, proven]).sort("scope_id", "basis", "idx").drop("idx")
