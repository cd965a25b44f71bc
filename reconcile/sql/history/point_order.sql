-- The points' instants, partition by partition: one row per partition and instant
-- some point is at, numbered (idx) across partitions in (scope, partition, time)
-- order, so that a partition's instants are a run of numbers and an interval of
-- them never straddles two partitions. The points of a segment tree (one group).
-- A template: rc_points is bound per set of points (evaluate_points in
-- reconcile/engine/steps/history.py).
SELECT
    '' AS grp,
    row_number() OVER (ORDER BY scope_id, partition_id, t) - 1 AS idx,
    scope_id,
    partition_id,
    t
FROM (SELECT DISTINCT scope_id, partition_id, t FROM rc_points)
