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


# The candidate points' certificates as a working table, when evaluated elsewhere
# (Analysis.preset: rc_point_certs rows for the point_ids of rc_candidate_points).
CANDIDATE_CERTS = "rc_candidate_certs"


def proven_candidates(analysis: Analysis) -> None:
    """rc_candidate_points: the points the proven basis must evaluate exactly."""
    _table(analysis, "rc_proven_segments", "frontier/proven_segments")
    _tree(analysis, "frontier/tree_in_proven", "rc_fx")
    _table(analysis, "rc_fx_pieces", "frontier/fx_pieces")
    _table(analysis, "rc_candidates", "frontier/candidates")
    _table(analysis, "rc_candidate_points", "frontier/candidate_points")


def _candidate_certs(analysis: Analysis) -> None:
    """rc_point_certs of the candidate points: given (CANDIDATE_CERTS), else evaluated
    here. Given, every candidate point must have its row: a point missing would
    count as no certificate, a silent overclaim."""
    if analysis.given(CANDIDATE_CERTS):
        missing = analysis.con.execute(
            "SELECT count(*) FROM rc_candidate_points AS p"
            f" ANTI JOIN {CANDIDATE_CERTS} AS c USING (point_id)"
        ).fetchall()[0][0]
        if missing:
            raise ReconcileError(
                f"{missing} candidate point(s) of the proven frontier were not evaluated"
                " (the engine's fault: please report it)"
            )
        analysis.con.execute(
            f"CREATE OR REPLACE TEMP TABLE rc_point_certs AS FROM {CANDIDATE_CERTS}"
        )
        return
    analysis.con.execute(
        "CREATE OR REPLACE TEMP TABLE rc_points AS"
        " SELECT point_id, scope_id, partition_id, t FROM rc_candidate_points"
    )
    analysis.evaluate_points()


def proven_history(analysis: Analysis) -> pl.DataFrame:
    proven_candidates(analysis)
    _candidate_certs(analysis)
    _table(analysis, "rc_hist_min", "frontier/proven_min")
    _table(analysis, "rc_hist_counts", "frontier/proven_counts")
    _table(analysis, "rc_hist_holders", "frontier/proven_holders")
    return _rows(analysis, "proven")


def candidate_points(analysis: Analysis) -> pl.DataFrame:
    """The points (point_id, scope_id, partition_id, t) that the proven frontier's
    history evaluates exactly: what :func:`frontier_history` needs of the receipts,
    beyond the partition phase, to be evaluated where the receipts are."""
    analysis.frontiers()
    analysis.prepare_history()
    analysis.run(HISTORY_FRONTIER_STEPS)
    proven_candidates(analysis)
    sql = "SELECT point_id, scope_id, partition_id, t FROM rc_candidate_points ORDER BY point_id"
    frame = pl.from_arrow(analysis.con.sql(sql).to_arrow_table())
    assert isinstance(frame, pl.DataFrame)
    return frame


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
