-- snapshot_bounds: the extract enumerates each stream (each partition of a
-- partitioned one) through its highest cursor.
SELECT
    e.stream AS scope_id,
    coalesce(rc_partition_of(pk.keys, e.fields), e.stream) AS partition_id,
    max(rc_source_cursor(e.cursor)) AS complete_through,
    true AS complete_inclusive
FROM rc_source_extract AS e
LEFT JOIN rc_partition_keys AS pk USING (stream)
GROUP BY ALL
ORDER BY scope_id, partition_id
