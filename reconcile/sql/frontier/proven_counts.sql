-- Per instant, how many members have no proven certificate (no provider's), and, as
-- on the claimed basis, how many claim with an unknown endpoint or in another
-- ordering: §4.14 makes "every endpoint is known, all claims are in the scope's
-- ordering" a condition of any scalar frontier, whatever its basis (a claim in
-- another ordering may mean the partition's positions are too).
WITH deltas AS (
    SELECT scope_id, lo AS idx, 1 AS d FROM rc_proven_segments WHERE part = 'provider' AND v IS NULL
    UNION ALL
    SELECT scope_id, hi, -1 FROM rc_proven_segments WHERE part = 'provider' AND v IS NULL
),
per_idx AS (
    SELECT scope_id, idx, sum(d) AS d FROM deltas GROUP BY scope_id, idx
)
SELECT i.scope_id, i.idx,
       sum(coalesce(d.d, 0)) OVER (PARTITION BY i.scope_id ORDER BY i.idx
                                   ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS no_cert,
       CAST(c.unknown AS BIGINT) AS unknown,
       CAST(c.incomparable AS BIGINT) AS incomparable
FROM rc_instants AS i
LEFT JOIN per_idx AS d USING (scope_id, idx)
JOIN rc_claimed_counts AS c USING (scope_id, idx)
