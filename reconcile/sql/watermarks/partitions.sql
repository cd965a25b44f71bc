-- Every partition found in any table (the whole log set, §3) and its evidence
-- (§4.2): snapshot when snapshot or snapshot_bounds has rows for it, else receipts
-- when receipts or pages has, else none. `pk` is the partition's key in the
-- event-level tables (the engine checks that no two partitions share one).
WITH found AS (
    SELECT DISTINCT scope_id, partition_id, 0 AS kind FROM checkpoints
    UNION ALL SELECT DISTINCT scope_id, partition_id, 0 FROM members
    UNION ALL SELECT DISTINCT scope_id, partition_id, 1 FROM receipts
    UNION ALL SELECT DISTINCT scope_id, partition_id, 1 FROM pages
    UNION ALL SELECT DISTINCT scope_id, partition_id, 2 FROM snapshot
    UNION ALL SELECT DISTINCT scope_id, partition_id, 2 FROM snapshot_bounds
)
SELECT
    rc_pk(f.scope_id, f.partition_id) AS pk,
    f.scope_id,
    f.partition_id,
    CASE max(f.kind) WHEN 2 THEN 'snapshot' WHEN 1 THEN 'receipts' ELSE 'none' END AS evidence,
    any_value(s.discrete) AS discrete
FROM found AS f
JOIN rc_scopes AS s ON s.scope_id = f.scope_id
GROUP BY f.scope_id, f.partition_id
