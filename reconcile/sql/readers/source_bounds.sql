-- snapshot_bounds: the extract enumerates each stream through its highest cursor.
SELECT
    stream AS scope_id,
    stream AS partition_id,
    max(rc_source_cursor(cursor)) AS complete_through,
    true AS complete_inclusive
FROM rc_source_extract
GROUP BY stream
ORDER BY stream
