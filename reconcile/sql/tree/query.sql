-- The minimum over intervals covering each point of rc_tree_points(grp, idx): the
-- least value among the nodes on its path to the root (rc_tree_nodes). Computed top
-- down: every block of every level, from the highest level with a node to the
-- leaves, takes the least of its parent's value and its own node's. That is about
-- two rows per point in all, where looking up each point's path costs a row per
-- level. The nodes hold keys (rc_cert_key); the least is made a certificate again.
-- A template: rc_tree_nodes and rc_tree_points are bound per tree (segment_tree_minimum in
-- reconcile/engine/steps/tree.py).
WITH RECURSIVE
span AS (
    SELECT grp, min(idx) AS lo, max(idx) AS hi FROM rc_tree_points GROUP BY grp
),
top AS (
    SELECT CAST(coalesce(max(k), 0) AS BIGINT) AS k FROM rc_tree_nodes
),
down(grp, k, block, v) AS (
    SELECT b.grp, b.k, b.block, n.v
    FROM (
        SELECT s.grp, t.k, unnest(range(s.lo >> t.k, (s.hi >> t.k) + 1)) AS block
        FROM span AS s
        CROSS JOIN top AS t
    ) AS b
    LEFT JOIN rc_tree_nodes AS n ON n.grp = b.grp AND n.k = b.k AND n.block = b.block
    UNION ALL
    SELECT c.grp, c.k, c.block, least(c.v, n.v)
    FROM (
        SELECT d.grp, d.k - 1 AS k, unnest([2 * d.block, 2 * d.block + 1]) AS block, d.v
        FROM down AS d
        WHERE d.k > 0
    ) AS c
    JOIN span AS s ON s.grp = c.grp
    LEFT JOIN rc_tree_nodes AS n ON n.grp = c.grp AND n.k = c.k AND n.block = c.block
    WHERE c.block BETWEEN s.lo >> c.k AND s.hi >> c.k
)
SELECT p.grp, p.idx, rc_key_cert(d.v) AS v
FROM rc_tree_points AS p
JOIN down AS d ON d.grp = p.grp AND d.k = 0 AND d.block = p.idx
