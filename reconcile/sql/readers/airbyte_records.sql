-- rc_airbyte_records: each RECORD of an incremental stream, with its sync, line, time
-- (msg_at), and what places it: its key (the primary key's values joined by '|'), its
-- cursor field's value as text, and its emitted_at in milliseconds (a raw row is a
-- RECORD's where its key, cursor and the millisecond it was extracted are the
-- RECORD's). Read by airbyte_checkpoints.sql and airbyte_raw_receipts.sql.
SELECT
    m.sync, m.sync_no, m.line, m.stream_id, s.stream, m.msg_at,
    array_to_string(
        list_transform(s.key_paths, lambda p: json_extract_string(json_extract(m.record, '$.data'), p)),
        '|'
    ) AS key,
    json_extract_string(json_extract(m.record, '$.data'), s.cursor_path) AS cursor,
    CAST(round(TRY_CAST(json_extract_string(m.record, '$.emitted_at') AS DOUBLE)) AS BIGINT)
        AS emitted_ms
FROM rc_airbyte_messages AS m
JOIN rc_airbyte_streams AS s USING (stream_id)
WHERE m.type = 'RECORD' AND s.sync_mode = 'incremental'
