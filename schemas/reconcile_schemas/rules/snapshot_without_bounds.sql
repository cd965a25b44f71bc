-- table: snapshot
-- column: partition_id
-- requires: snapshot
-- reads: snapshot snapshot_bounds
-- message: the partition has snapshot rows but no snapshot_bounds row
-- One row per offending partition; __rows counts its snapshot rows.
SELECT
    s.scope_id,
    s.partition_id,
    count(*) AS __rows,
    min(s.__file) AS __file,
    min(s.__row) AS __row
FROM snapshot AS s
WHERE NOT EXISTS (
    SELECT 1
    FROM snapshot_bounds AS b
    WHERE b.scope_id = s.scope_id AND b.partition_id = s.partition_id
)
GROUP BY s.scope_id, s.partition_id
ORDER BY s.scope_id, s.partition_id
