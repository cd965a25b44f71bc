-- For each point (a partition at an instant t, in rc_points): the page windows
-- active at t, and the block each imposes; `moving` marks a point inside the part of
-- a window where receipts still arrive, whose block is looked up in
-- rc_moving_receipts.
-- A template: rc_points is bound per set of points (evaluate_points in
-- reconcile/engine/steps/history.py).
WITH sequential AS (
    -- windows closed before the partition's next page is fetched: at most one is
    -- open at any instant, so the latest fetched before t is the only candidate
    SELECT * FROM rc_page_windows WHERE NOT outlives_next
),
latest AS (
    SELECT pt.point_id, pt.t, w.*
    FROM rc_points AS pt
    ASOF JOIN sequential AS w
        ON w.scope_id = pt.scope_id AND w.partition_id = pt.partition_id AND w.fetched_at <= pt.t
    WHERE pt.t < w.end_t
),
ranged AS (
    SELECT pt.point_id, pt.t, w.*
    FROM rc_points AS pt
    JOIN rc_page_windows AS w
        ON w.scope_id = pt.scope_id AND w.partition_id = pt.partition_id
    WHERE w.outlives_next AND w.fetched_at <= pt.t AND pt.t < w.end_t
),
active AS (
    SELECT * FROM latest
    UNION ALL
    SELECT * FROM ranged
)
SELECT
    point_id,
    scope_id,
    partition_id,
    page_id,
    t,
    discrete,
    CASE
        WHEN first_own_at IS NULL OR t < first_own_at THEN rc_before(min_position, discrete)
        WHEN t >= last_own_at THEN rc_before(tail_pos, discrete)
    END AS cert,
    first_own_at IS NOT NULL AND t >= first_own_at AND t < last_own_at AS moving
FROM active
