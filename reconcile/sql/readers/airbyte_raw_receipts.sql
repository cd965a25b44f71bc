-- receipts, where the destination's raw tables are given: every raw row of an
-- incremental stream. It is committed when typing and deduping put it in the final
-- table (_airbyte_loaded_at), and failed (not durable) at the time it was extracted
-- while it is not there yet. Its event_id the primary key's values joined by '|', its
-- position its cursor field's value; its attempt the sync that wrote it, where the
-- row's _airbyte_meta names one.
-- Also every RECORD of an incremental stream that no raw row is of (the destination
-- dropped it): failed, in its sync, at its time. A raw row is a RECORD's where its
-- stream, key and cursor are the RECORD's and it was extracted in the millisecond the
-- RECORD was emitted (as airbyte_checkpoints.sql places rows). Left out, a dropped
-- record was unknown: no receipt, so nothing under a claim past it was missing.
WITH dropped AS (
    SELECT c.*
    FROM rc_airbyte_records AS c
    ANTI JOIN rc_airbyte_raw AS r
        ON r.stream_id = c.stream_id AND r.key = c.key AND r.cursor = c.cursor
       AND epoch_ns(r.extracted_at) // 1000000 = c.emitted_ms
)
SELECT
    stream AS scope_id,
    stream AS partition_id,
    key AS event_id,
    rc_source_cursor(cursor) AS position,
    CASE WHEN loaded_at IS NULL THEN 'failed' ELSE 'committed' END AS outcome,
    CAST(NULL AS BOOLEAN) AS eligibility_stable,
    coalesce(sync_id, 'raw') AS attempt_id,
    CAST(NULL AS BIGINT) AS owner_epoch,
    CAST(NULL AS VARCHAR) AS page_id,
    coalesce(loaded_at, extracted_at) AS recorded_at
FROM rc_airbyte_raw
UNION ALL
SELECT
    stream,
    stream,
    key,
    rc_source_cursor(cursor),
    'failed',
    CAST(NULL AS BOOLEAN),
    sync,
    CAST(NULL AS BIGINT),
    CAST(NULL AS VARCHAR),
    msg_at
FROM dropped
ORDER BY recorded_at, scope_id, event_id
