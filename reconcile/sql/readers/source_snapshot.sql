-- snapshot: the user's source extract (rc_source_extract: stream, key, cursor as text),
-- every row an eligible event whose decision cannot change, visible before every run.
SELECT
    stream AS scope_id,
    stream AS partition_id,
    key AS event_id,
    rc_source_cursor(cursor) AS position,
    true AS eligible,
    true AS eligibility_stable,
    CAST(NULL AS TIMESTAMP_NS) AS visible_at
FROM rc_source_extract
ORDER BY stream, key
