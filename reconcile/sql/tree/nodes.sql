-- A segment tree over instant indices, in SQL (the minimum over intervals covering
-- each point, in O((intervals + points) log points) rows rather than their product).
-- Input rc_tree_in(grp, lo, hi, v): the value v holds on indices [lo, hi) of group
-- grp.
-- First each interval becomes its two halves: with 2^k the greatest power of two not
-- above its length, [lo, lo + 2^k) and [hi - 2^k, hi) cover it exactly (they may
-- overlap, which a minimum allows). Halves of one length and start are one block
-- with the least of their values: however many the intervals, there are at most
-- (points x levels) blocks, and an interval costs two rows, not two per level.
-- Then each block is split into its canonical nodes: at level k, blocks of 2^k
-- indices lying inside [lo, hi) whose parent block does not; at most two per level.
-- The least value over the nodes on a point's path (tree/query) is the least over
-- the blocks covering it, so the least over the intervals covering it. Values are
-- kept as their keys (rc_cert_key: one HUGEINT in certificate order), whose minimum
-- is a native comparison; tree/query turns the least back into a certificate.
-- A template: rc_tree_in is bound per tree (segment_tree_minimum in
-- reconcile/engine/steps/tree.py).
WITH guessed AS (
    SELECT grp, lo, hi, rc_cert_key(v) AS v, least(CAST(floor(log2(hi - lo)) AS BIGINT), 61) AS k0
    FROM rc_tree_in
    WHERE hi > lo
),
-- log2 is a float's: from 2^49 - 1 up it can round up to the next power, so k is
-- made exact by comparing 2^k with the length as integers. The levels stop at 61
-- (2^63 overflows), so an interval of 2^62 points or more is refused, never cut short.
halves AS (
    SELECT grp, lo, hi, v,
           CASE WHEN hi - lo >= (CAST(1 AS BIGINT) << 62)
                THEN error('tree/nodes: an interval of 2^62 points or more')
                ELSE k0 - CAST((CAST(1 AS BIGINT) << k0) > hi - lo AS BIGINT)
                        + CAST((CAST(1 AS BIGINT) << (k0 + 1)) <= hi - lo AS BIGINT)
           END AS k
    FROM guessed
),
blocks AS (
    SELECT grp, k, s AS lo, s + (CAST(1 AS BIGINT) << k) AS hi, min(v) AS v
    FROM (
        SELECT grp, k, lo AS s, v FROM halves
        UNION ALL
        SELECT grp, k, hi - (CAST(1 AS BIGINT) << k), v FROM halves
        WHERE hi - (CAST(1 AS BIGINT) << k) <> lo
    ) AS h
    GROUP BY grp, k, s
),
levels AS (
    SELECT unnest(range(0, 62)) AS k
),
spans AS (
    SELECT i.grp, i.v, l.k,
           (i.lo + (CAST(1 AS BIGINT) << l.k) - 1) >> l.k AS a,
           i.hi >> l.k AS b,
           2 * ((i.lo + (CAST(1 AS BIGINT) << (l.k + 1)) - 1) >> (l.k + 1)) AS a2,
           2 * (i.hi >> (l.k + 1)) AS b2
    FROM blocks AS i
    JOIN levels AS l ON l.k <= i.k
),
candidates AS (
    SELECT grp, k, a AS block, v, a, b, a2, b2 FROM spans
    UNION ALL
    SELECT grp, k, b - 1, v, a, b, a2, b2 FROM spans WHERE b - 1 <> a
)
SELECT grp, k, block, min(v) AS v
FROM candidates
WHERE block >= a AND block < b AND NOT (a2 < b2 AND block >= a2 AND block < b2)
GROUP BY grp, k, block
