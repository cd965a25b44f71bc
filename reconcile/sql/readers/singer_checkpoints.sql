-- checkpoints, without compare-and-swap (docs/contract.md §3): every stream bookmark of
-- every STATE message, a write of its stream's checkpoint claiming through its
-- replication_key_value, inclusive (the strongest reading of "synced up to"; the
-- receipts judge it). A STATE carries no time: it is dated at the last time before it
-- plus one microsecond per STATE since that time (the engine's as-of is in
-- microseconds), so that writes keep the order they were emitted in and follow the
-- records before them. A partitioned bookmark writes its partition's checkpoint.
SELECT
    b.stream AS scope_id,
    coalesce(rc_partition_of(pk.keys, b.context), b.stream) AS partition_id,
    run AS attempt_id,
    make_timestamp_ns(
        epoch_ns(msg_at)
        + 1000 * dense_rank() OVER (PARTITION BY msg_at ORDER BY run_no, line)
    ) AS written_at,
    CAST(NULL AS VARCHAR) AS resume_token,
    CAST(NULL AS VARCHAR) AS page_id,
    -- a bookmark the cursor's reading cannot read is refused, never a claim of
    -- nothing (which would hide what it skipped)
    CASE
        WHEN rc_source_cursor(json_extract_string(replication_key_value, '$')) IS NULL
            THEN error(format(
                'the STATE at {} line {} bookmarks stream {} at "{}", which is not a value of'
                || ' the kind its replication key holds: what it claims cannot be read',
                run, line, b.stream, json_extract_string(replication_key_value, '$')))
        ELSE rc_source_cursor(json_extract_string(replication_key_value, '$'))
    END AS watermark,
    true AS watermark_inclusive,
    CAST(NULL AS VARCHAR) AS watermark_event_id,
    CAST(NULL AS VARCHAR) AS ordering
FROM rc_singer_bookmarks AS b
LEFT JOIN rc_partition_keys AS pk USING (stream)
WHERE coalesce(json_type(replication_key_value), 'NULL') <> 'NULL'
ORDER BY run_no, line, partition_id
