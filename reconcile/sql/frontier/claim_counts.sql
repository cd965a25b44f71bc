-- Per instant, how many members have no claim, one with an unknown endpoint, one in
-- another ordering: running sums of +1/-1 at the claim segments' ends.
WITH deltas AS (
    SELECT scope_id, lo AS idx, CAST(v IS NULL AS INTEGER) AS no_cert,
           CAST(unknown AS INTEGER) AS unknown, CAST(incomparable AS INTEGER) AS incomparable
    FROM rc_claim_segments
    UNION ALL
    SELECT scope_id, hi, -CAST(v IS NULL AS INTEGER), -CAST(unknown AS INTEGER),
           -CAST(incomparable AS INTEGER)
    FROM rc_claim_segments
),
per_idx AS (
    SELECT scope_id, idx, sum(no_cert) AS no_cert, sum(unknown) AS unknown,
           sum(incomparable) AS incomparable
    FROM deltas
    GROUP BY scope_id, idx
)
SELECT
    i.scope_id,
    i.idx,
    sum(coalesce(d.no_cert, 0)) OVER w AS no_cert,
    sum(coalesce(d.unknown, 0)) OVER w AS unknown,
    sum(coalesce(d.incomparable, 0)) OVER w AS incomparable
FROM rc_instants AS i
LEFT JOIN per_idx AS d USING (scope_id, idx)
WINDOW w AS (PARTITION BY i.scope_id ORDER BY i.idx ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
