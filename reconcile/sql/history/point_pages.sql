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
-- Windows that outlive the partition's next page (pages handled side by side) can be
-- open several at once: each point is matched with those of its partition through
-- cells of time about as long as a typical such window (an equi-join on the cell, then
-- the time check), not with every one of them (a point per receipt times a window per
-- page: quadratic in a partition's pages). Every step rounds monotonically, so a window
-- [fetched_at, end_t) lies in the cells from its start's to its end's; a window much
-- longer than a cell is matched by partition alone.
overlapping AS MATERIALIZED (
    SELECT *, row_number() OVER () AS w_no FROM rc_page_windows WHERE outlives_next
),
cell AS (
    SELECT greatest(1.0, coalesce(
        median(CAST(epoch_ns(end_t) AS DOUBLE) - CAST(epoch_ns(fetched_at) AS DOUBLE)), 1.0
    )) AS width
    FROM overlapping
),
spans AS (
    SELECT w.scope_id, w.partition_id, w.w_no,
           floor(epoch_ns(w.fetched_at) / c.width) AS c_lo,
           floor(epoch_ns(w.end_t) / c.width) AS c_hi
    FROM overlapping AS w
    CROSS JOIN cell AS c
),
cells AS (
    SELECT scope_id, partition_id, w_no,
           CAST(unnest(range(CAST(c_lo AS BIGINT), CAST(c_hi AS BIGINT) + 1)) AS DOUBLE) AS c
    FROM spans
    WHERE c_hi - c_lo < 64
),
pairs AS (
    SELECT pt.point_id, pt.t, s.w_no
    FROM rc_points AS pt
    CROSS JOIN cell
    JOIN cells AS s
        ON s.scope_id = pt.scope_id AND s.partition_id = pt.partition_id
       AND s.c = floor(epoch_ns(pt.t) / cell.width)
    UNION ALL
    SELECT pt.point_id, pt.t, s.w_no
    FROM rc_points AS pt
    JOIN spans AS s
        ON s.scope_id = pt.scope_id AND s.partition_id = pt.partition_id
    WHERE NOT (s.c_hi - s.c_lo < 64)
),
ranged AS (
    SELECT p.point_id, p.t, w.* EXCLUDE (w_no)
    FROM pairs AS p
    JOIN overlapping AS w USING (w_no)
    WHERE w.fetched_at <= p.t AND p.t < w.end_t
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
