-- Each partition's claim over the instants, as segments [lo, hi) of instant indices,
-- clipped to where it is a member: its value (null: no claim), whether its endpoint
-- is unknown, whether it is stated in another ordering.
WITH n AS (
    SELECT scope_id, min(idx) AS first, max(idx) + 1 AS n FROM rc_instants GROUP BY scope_id
),
steps AS (
    SELECT c.scope_id, c.partition_id, i.idx AS lo,
           lead(i.idx) OVER (PARTITION BY c.scope_id, c.partition_id ORDER BY i.idx) AS next_lo,
           c.latest
    FROM rc_claim_steps AS c
    JOIN rc_instants AS i ON i.scope_id = c.scope_id AND i.t = c.from_t
),
segments AS (
    SELECT s.scope_id, s.partition_id, s.lo, coalesce(s.next_lo, n.n) AS hi,
           rc_cert(s.latest.watermark, s.latest.inclusive, sc.discrete) AS v,
           s.latest.watermark IS NOT NULL AND s.latest.inclusive IS NULL AS unknown,
           s.latest.watermark IS NOT NULL AND s.latest.ordering IS NOT NULL
               AND s.latest.ordering <> sc.ordering AS incomparable
    FROM steps AS s
    JOIN n USING (scope_id)
    JOIN rc_scopes AS sc USING (scope_id)
    UNION ALL
    -- before a partition's first won write: no claim
    SELECT p.scope_id, p.partition_id, n.first, coalesce(
               (SELECT min(i.idx) FROM rc_claim_steps AS c
                JOIN rc_instants AS i ON i.scope_id = c.scope_id AND i.t = c.from_t
                WHERE c.scope_id = p.scope_id AND c.partition_id = p.partition_id),
               n.n),
           NULL, false, false
    FROM rc_partitions AS p
    JOIN n USING (scope_id)
)
SELECT s.scope_id, s.partition_id, greatest(s.lo, m.lo) AS lo, least(s.hi, m.hi) AS hi,
       s.v, s.unknown, s.incomparable
FROM segments AS s
JOIN rc_member_spans AS m ON m.scope_id = s.scope_id AND m.partition_id = s.partition_id
WHERE greatest(s.lo, m.lo) < least(s.hi, m.hi)
