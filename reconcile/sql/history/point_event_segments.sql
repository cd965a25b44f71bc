-- The event blockers (rc_event_segments) as intervals of the points' instants: an
-- event blocks at a point at t when from_t <= t < to_t, so over the partition's
-- instants from the first at or after from_t to the first at or after to_t
-- (rc_point_span, a search in each partition's run of instants, both ends at once). The segment tree
-- over them gives each point the least blocker in force, where joining every
-- point with every blocker of its partition costs their product. A blocker that
-- holds at none of the points (between two of them) is left out.
-- A template: rc_point_order is bound per set of points (evaluate_points in
-- reconcile/engine/steps/history.py).
WITH spans AS (
    SELECT scope_id, partition_id, min(idx) AS first, max(idx) + 1 AS n
    FROM rc_point_order
    GROUP BY scope_id, partition_id
),
searched AS (
    SELECT rc_point_span(s.first, s.n, e.from_t, coalesce(e.to_t, rc_dusk())) AS span, s.n,
           e.cert
    FROM rc_event_segments AS e
    JOIN spans AS s USING (scope_id, partition_id)
),
intervals AS (
    SELECT '' AS grp, coalesce(span.lo, n) AS lo, coalesce(span.hi, n) AS hi, cert AS v
    FROM searched
)
SELECT grp, lo, hi, v
FROM intervals
WHERE lo < hi
