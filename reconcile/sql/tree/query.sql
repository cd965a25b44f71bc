-- The minimum over intervals covering each point of rc_tree_points(grp, idx): the
-- least value among the nodes on its path to the root (rc_tree_nodes).
WITH paths AS (
    SELECT p.grp, p.idx, unnest(range(0, (SELECT coalesce(max(k), 0) + 1 FROM rc_tree_nodes))) AS k
    FROM rc_tree_points AS p
)
SELECT paths.grp, paths.idx, min(n.v) AS v
FROM paths
LEFT JOIN rc_tree_nodes AS n
    ON n.grp = paths.grp AND n.k = paths.k AND n.block = paths.idx >> paths.k
GROUP BY paths.grp, paths.idx
