-- A segment tree over instant indices, in SQL (the minimum over intervals covering
-- each point, in O((intervals + points) log points) rows rather than their product).
-- Input rc_tree_in(grp, lo, hi, v): the value v holds on indices [lo, hi) of group
-- grp. Each interval is split into its canonical nodes: at level k, blocks of 2^k
-- indices lying inside [lo, hi) whose parent block does not; at most two per level.
-- A template: rc_tree_in is bound per tree (segment_tree_minimum in
-- reconcile/engine/steps/tree.py).
WITH levels AS (
    SELECT unnest(range(0, 62)) AS k
),
spans AS (
    SELECT i.grp, i.lo, i.hi, i.v, l.k,
           (i.lo + (CAST(1 AS BIGINT) << l.k) - 1) >> l.k AS a,
           i.hi >> l.k AS b,
           2 * ((i.lo + (CAST(1 AS BIGINT) << (l.k + 1)) - 1) >> (l.k + 1)) AS a2,
           2 * (i.hi >> (l.k + 1)) AS b2
    FROM rc_tree_in AS i
    JOIN levels AS l ON (CAST(1 AS BIGINT) << l.k) <= greatest(i.hi - i.lo, 1)
    WHERE i.hi > i.lo
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
