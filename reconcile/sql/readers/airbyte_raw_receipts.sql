-- receipts, where the destination's raw tables are given: every raw row of an
-- incremental stream. It is committed when typing and deduping put it in the final
-- table (_airbyte_loaded_at), and failed (not durable) at the time it was extracted
-- while it is not there yet. Its event_id the primary key's values joined by '|', its
-- position its cursor field's value; its attempt the sync that wrote it, where the
-- row's _airbyte_meta names one.
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
ORDER BY recorded_at, stream, key
