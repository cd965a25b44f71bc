-- receipts: every row of every incremental table (rc_dlt_rows), in the load that
-- wrote it. A row of a completed load is committed at the time the load completed; a
-- row of a load that never completed (no _dlt_loads entry) is in the table, but its
-- load is not: failed, not durable, at the time of its load id (dlt's load ids are the
-- Unix time the package was made). Its event_id is the primary key's values joined by
-- '|', its position the cursor column's value.
SELECT
    r.stream AS scope_id,
    r.stream AS partition_id,
    r.key AS event_id,
    rc_source_cursor(r.cursor) AS position,
    CASE WHEN l.load_id IS NULL THEN 'failed' ELSE 'committed' END AS outcome,
    CAST(NULL AS BOOLEAN) AS eligibility_stable,
    r.load_id AS attempt_id,
    CAST(NULL AS BIGINT) AS owner_epoch,
    CAST(NULL AS VARCHAR) AS page_id,
    coalesce(
        l.loaded_at,
        make_timestamp_ns(CAST(round(TRY_CAST(r.load_id AS DOUBLE) * 1e6) AS BIGINT) * 1000)
    ) AS recorded_at
FROM rc_dlt_rows AS r
LEFT JOIN rc_dlt_loads AS l USING (load_id)
ORDER BY recorded_at, r.stream, r.key
