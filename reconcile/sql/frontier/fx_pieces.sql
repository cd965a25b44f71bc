-- Runs of equal value in rc_fx (the exact minimum over the parts of the proven basis
-- that hold still), as instant-number ranges [lo, hi) per scope.
WITH marked AS (
    SELECT scope_id, idx, v,
           CASE WHEN lag(v) OVER w IS NOT DISTINCT FROM v AND lag(idx) OVER w = idx - 1
                THEN 0 ELSE 1 END AS starts
    FROM rc_fx
    WINDOW w AS (PARTITION BY scope_id ORDER BY idx)
),
runs AS (
    SELECT *, sum(starts) OVER (PARTITION BY scope_id ORDER BY idx
                                ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS run
    FROM marked
)
SELECT scope_id, min(idx) AS lo, max(idx) + 1 AS hi, any_value(v) AS v
FROM runs
GROUP BY scope_id, run
