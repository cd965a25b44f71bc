-- receipts: every RECORD of an incremental stream, read as delivered (committed) in
-- its sync; its event_id the values of its stream's primary key joined by '|', its
-- position its cursor field's value, its time its emitted_at.
SELECT
    s.stream AS scope_id,
    s.stream AS partition_id,
    array_to_string(
        list_transform(s.key_paths, lambda p: json_extract_string(json_extract(m.record, '$.data'), p)),
        '|'
    ) AS event_id,
    rc_source_cursor(json_extract_string(json_extract(m.record, '$.data'), s.cursor_path))
        AS position,
    'committed' AS outcome,
    CAST(NULL AS BOOLEAN) AS eligibility_stable,
    m.sync AS attempt_id,
    CAST(NULL AS BIGINT) AS owner_epoch,
    CAST(NULL AS VARCHAR) AS page_id,
    m.msg_at AS recorded_at
FROM rc_airbyte_messages AS m
JOIN rc_airbyte_streams AS s USING (stream_id)
WHERE m.type = 'RECORD' AND s.sync_mode = 'incremental'
ORDER BY m.sync_no, m.line
