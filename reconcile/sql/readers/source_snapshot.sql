-- snapshot: the user's source extract (rc_source_extract: stream, key, cursor as text,
-- and the whole row as JSON), every row an eligible event whose decision cannot
-- change, visible before every run; in a partitioned stream (rc_partition_keys), in
-- the partition its columns name.
SELECT
    e.stream AS scope_id,
    coalesce(rc_partition_of(pk.keys, e.fields), e.stream) AS partition_id,
    e.key AS event_id,
    rc_source_cursor(e.cursor) AS position,
    true AS eligible,
    true AS eligibility_stable,
    CAST(NULL AS TIMESTAMP_NS) AS visible_at
FROM rc_source_extract AS e
LEFT JOIN rc_partition_keys AS pk USING (stream)
ORDER BY scope_id, partition_id, event_id
