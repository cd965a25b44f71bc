-- checkpoints, without compare-and-swap (docs/contract.md §3): every stream bookmark of
-- every STATE message, a write of its stream's checkpoint claiming through the value
-- it holds (rc_singer_claims), inclusive (the strongest reading of "synced up to"; the
-- receipts judge it). A STATE carries no time: it is dated after every message before
-- it and before every message after it (message_times.sql), so that writes keep the
-- order they were emitted in. A partitioned bookmark writes its partition's checkpoint.
SELECT
    b.stream AS scope_id,
    coalesce(rc_partition_of(pk.keys, b.context), b.stream) AS partition_id,
    run AS attempt_id,
    msg_at AS written_at,
    CAST(NULL AS VARCHAR) AS resume_token,
    CAST(NULL AS VARCHAR) AS page_id,
    -- a bookmark the cursor's reading cannot read is refused, never a claim of
    -- nothing (which would hide what it skipped)
    CASE
        WHEN rc_source_cursor(json_extract_string(claimed, '$')) IS NULL
            THEN error(format(
                'the STATE at {} line {} bookmarks stream {} at "{}", which is not a value of'
                || ' the kind its replication key holds: what it claims cannot be read',
                run, line, b.stream, json_extract_string(claimed, '$')))
        ELSE rc_source_cursor(json_extract_string(claimed, '$'))
    END AS watermark,
    true AS watermark_inclusive,
    CAST(NULL AS VARCHAR) AS watermark_event_id,
    CAST(NULL AS VARCHAR) AS ordering
FROM rc_singer_claims AS b
LEFT JOIN rc_partition_keys AS pk USING (stream)
WHERE coalesce(json_type(claimed), 'NULL') <> 'NULL'
ORDER BY run_no, line, partition_id
