-- The event blockers (rc_event_segments) as intervals of the points' instants: an
-- event blocks at a point at t when from_t <= t < to_t, so over the partition's
-- instants from the first at or after from_t to the first at or after to_t
-- (rc_point_span, a search in each partition's run of instants, both ends at once).
-- The segment tree over them gives each point the least blocker in force, where
-- joining every point with every blocker of its partition costs their product. A
-- blocker that holds at none of the points (between two of them) is left out.
-- Most blockers are such (at 10 M with a snapshot, 5,339 of 8.9 M hold at a won
-- write), so before the search a grid of time cells leaves out each blocker that
-- starts and ends in one cell, or in neighbouring ones, where no point lies: a
-- point within [from_t, to_t) lies in a cell from from_t's to to_t's, so only
-- blockers at none of the points are left out. A cell is as wide as nearly all
-- blockers are long (the 99th percentile of a 1 % sample: the width moves only the
-- speed, never the result), and at most a quarter of the points' median gap, so
-- that few cells hold a point (at 10 M: 7 % of the blockers left to search). Those
-- left are sorted by partition before the search: DuckDB calls the search once per
-- chunk of rows, however few a filter left in it, and each call has a fixed price.
-- A template: rc_point_order is bound per set of points (evaluate_points in
-- reconcile/engine/steps/history.py).
WITH spans AS (
    SELECT scope_id, partition_id, min(idx) AS first, max(idx) + 1 AS n
    FROM rc_point_order
    GROUP BY scope_id, partition_id
),
gaps AS (
    -- in DOUBLE: two times far apart overflow their difference in int64 nanoseconds
    SELECT CAST(epoch_ns(t) AS DOUBLE)
           - CAST(lag(epoch_ns(t)) OVER (PARTITION BY scope_id, partition_id ORDER BY t) AS DOUBLE)
           AS gap
    FROM rc_point_order
),
lengths AS (
    SELECT approx_quantile(CAST(epoch_ns(to_t) AS DOUBLE) - CAST(epoch_ns(from_t) AS DOUBLE), 0.99)
           AS length
    FROM rc_event_segments
    WHERE to_t IS NOT NULL AND from_t > rc_dawn()
    USING SAMPLE 1 PERCENT (system, 7)
),
grid AS (
    SELECT CAST(greatest(least(coalesce(least((SELECT length FROM lengths),
                                              quantile_disc(gap, 0.5) / 4), 1e9), 1e18), 1)
                AS BIGINT) AS w
    FROM gaps
    WHERE gap > 0
),
marked AS (
    SELECT DISTINCT p.scope_id, p.partition_id, epoch_ns(p.t) // g.w AS cell
    FROM rc_point_order AS p, grid AS g
),
blockers AS (
    -- the blockers of the partitions with points alone
    SELECT e.scope_id, e.partition_id, e.from_t, coalesce(e.to_t, rc_dusk()) AS to_t, e.cert,
           s.first, s.n,
           epoch_ns(e.from_t) // g.w AS from_cell,
           epoch_ns(coalesce(e.to_t, rc_dusk())) // g.w AS to_cell
    FROM rc_event_segments AS e
    JOIN spans AS s USING (scope_id, partition_id)
    CROSS JOIN grid AS g
),
kept AS MATERIALIZED (
    SELECT b.scope_id, b.partition_id, b.from_t, b.to_t, b.cert, b.first, b.n
    FROM blockers AS b
    LEFT JOIN marked AS f
        ON f.scope_id = b.scope_id AND f.partition_id = b.partition_id AND f.cell = b.from_cell
    LEFT JOIN marked AS t
        ON t.scope_id = b.scope_id AND t.partition_id = b.partition_id AND t.cell = b.to_cell
    WHERE CAST(b.to_cell AS HUGEINT) - b.from_cell >= 2 OR f.cell IS NOT NULL OR t.cell IS NOT NULL
    ORDER BY b.scope_id, b.partition_id
),
searched AS (
    SELECT rc_point_span(first, n, from_t, to_t) AS span, n, cert
    FROM kept
),
intervals AS (
    SELECT '' AS grp, coalesce(span.lo, n) AS lo, coalesce(span.hi, n) AS hi, cert AS v
    FROM searched
)
SELECT grp, lo, hi, v
FROM intervals
WHERE lo < hi
