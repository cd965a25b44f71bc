-- checkpoints, without compare-and-swap (docs/contract.md §3): every stream bookmark of
-- every STATE message, a write of its stream's checkpoint claiming through its
-- replication_key_value, inclusive (the strongest reading of "synced up to"; the
-- receipts judge it). A STATE carries no time: it is dated at the last time before it
-- plus its line number in nanoseconds, so that writes keep the order they were emitted.
SELECT
    stream AS scope_id,
    stream AS partition_id,
    run AS attempt_id,
    make_timestamp_ns(epoch_ns(msg_at) + line) AS written_at,
    CAST(NULL AS VARCHAR) AS resume_token,
    CAST(NULL AS VARCHAR) AS page_id,
    rc_singer_cursor(json_extract_string(replication_key_value, '$')) AS watermark,
    true AS watermark_inclusive,
    CAST(NULL AS VARCHAR) AS watermark_event_id,
    CAST(NULL AS VARCHAR) AS ordering
FROM rc_singer_bookmarks
WHERE replication_key_value IS NOT NULL
ORDER BY run_no, line
