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
    -- a value the cursor's reading cannot read (a timestamp that is no time, an
    -- integer past 64 bits) is refused by its sync and line
    CASE
        WHEN json_extract_string(json_extract(m.record, '$.data'), s.cursor_path) IS NOT NULL
             AND rc_source_cursor(json_extract_string(json_extract(m.record, '$.data'), s.cursor_path)) IS NULL
            THEN error(format(
                'the RECORD at {} line {} (stream {}) has cursor value "{}", which is not a value'
                || ' of the kind the stream''s cursor holds: where it lies cannot be read',
                m.sync, m.line, s.stream,
                left(json_extract_string(json_extract(m.record, '$.data'), s.cursor_path), 60)))
        ELSE rc_source_cursor(json_extract_string(json_extract(m.record, '$.data'), s.cursor_path))
    END AS position,
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
