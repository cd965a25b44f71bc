-- The pages whose receiving steps can hold the proven frontier: those whose least
-- block (rc_receiving_windows.low) is at or below the bound from above
-- (rc_bound_min) at some instant of their window. Every step of any other page lies
-- above the frontier wherever it holds, so it neither sets the frontier's value nor
-- is among its limiting partitions. Compared by value alone (a tie of values keeps
-- the page, whatever the endpoints): keeping a page too many is only slower. Every
-- instant of a window has a bound (the window's own greatest block is among the
-- bound's parts there); a window without one is kept all the same.
--
-- The greatest bound over a window's instants [lo, hi - 1]: the bound mostly rises
-- with time, so where it does not fall anywhere inside the window (no instant whose
-- bound is below the one before it, found by an ASOF join on those falls), it is
-- the bound at the window's last instant, an ASOF join too. Only the windows with a
-- fall inside take a window aggregate over the instants in order, its frame as wide
-- as the window; without such windows the aggregate reads no instant.
WITH bounds AS (
    SELECT scope_id, idx, v.v AS bound
    FROM rc_bound_min
    WHERE v.v IS NOT NULL
),
falls AS (
    SELECT scope_id, idx
    FROM (
        SELECT scope_id, idx, bound < lag(bound) OVER (PARTITION BY scope_id ORDER BY idx) AS falls
        FROM bounds
    )
    WHERE falls
),
windows AS MATERIALIZED (
    SELECT w.scope_id, w.lo, w.hi - 1 AS last, w.partition_id, w.page_id, w.low.v AS low,
           f.idx AS next_fall
    FROM rc_receiving_windows AS w
    ASOF LEFT JOIN falls AS f
        ON f.scope_id = w.scope_id AND f.idx > w.lo
),
rising AS (
    -- no fall inside: the greatest bound is at the last instant with one
    SELECT w.scope_id, w.partition_id, w.page_id, w.low,
           CASE WHEN b.idx >= w.lo THEN b.bound END AS most
    FROM windows AS w
    ASOF LEFT JOIN bounds AS b
        ON b.scope_id = w.scope_id AND b.idx <= w.last
    WHERE w.next_fall IS NULL OR w.next_fall > w.last
),
falling AS MATERIALIZED (
    SELECT scope_id, lo, last, partition_id, page_id, low
    FROM windows
    WHERE next_fall <= last
),
stream AS (
    SELECT scope_id, idx, bound, NULL AS width, NULL AS partition_id, NULL AS page_id,
           NULL AS low
    FROM bounds
    WHERE EXISTS (SELECT 1 FROM falling)
    UNION ALL
    SELECT scope_id, lo, NULL, last - lo, partition_id, page_id, low
    FROM falling
),
spans AS (
    SELECT
        *,
        max(bound) OVER (
            PARTITION BY scope_id ORDER BY idx
            RANGE BETWEEN CURRENT ROW AND coalesce(width, 0) FOLLOWING
        ) AS most
    FROM stream
)
SELECT DISTINCT scope_id, partition_id, page_id
FROM (
    SELECT scope_id, partition_id, page_id, low, most FROM rising
    UNION ALL
    SELECT scope_id, partition_id, page_id, low, most FROM spans WHERE page_id IS NOT NULL
)
WHERE most IS NULL OR low <= most
