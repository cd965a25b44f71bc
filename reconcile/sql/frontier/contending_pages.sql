-- The pages whose receiving steps can hold the proven frontier: those whose least
-- block (rc_receiving_windows.low) is at or below the bound from above
-- (rc_bound_min) at some instant of their window. Every step of any other page lies
-- above the frontier wherever it holds, so it neither sets the frontier's value nor
-- is among its limiting partitions. Compared by value alone (a tie of values keeps
-- the page, whatever the endpoints): keeping a page too many is only slower. Every
-- instant of a window has a bound (the window's own greatest block is among the
-- bound's parts there); a window without one is kept all the same. The greatest
-- bound over a window's instants is a window aggregate over the instants in order,
-- its frame as wide as the window.
WITH stream AS (
    SELECT scope_id, idx, v.v AS bound, NULL AS width, NULL AS partition_id, NULL AS page_id,
           NULL AS low
    FROM rc_bound_min
    UNION ALL
    SELECT scope_id, lo, NULL, hi - lo - 1, partition_id, page_id, low.v
    FROM rc_receiving_windows
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
FROM spans
WHERE page_id IS NOT NULL AND (most IS NULL OR low <= most)
