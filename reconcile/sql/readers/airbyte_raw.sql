-- The destination's raw tables (rc_airbyte_raw_files: every row of every incremental
-- stream's raw table, as text, by its stream's stream_id), each row with its stream's
-- key and cursor taken from its _airbyte_data, the time it was extracted (the record's
-- emitted_at) and the time typing and deduping put it in the final table (null: not
-- there yet).
SELECT
    s.stream,
    r.stream_id,
    r.raw_id,
    array_to_string(list_transform(s.key_paths, lambda p: json_extract_string(r.data, p)), '|')
        AS key,
    json_extract_string(r.data, s.cursor_path) AS cursor,
    make_timestamp_ns(epoch_ns(CAST(r.extracted AS TIMESTAMPTZ))) AS extracted_at,
    make_timestamp_ns(epoch_ns(CAST(r.loaded AS TIMESTAMPTZ))) AS loaded_at,
    json_extract_string(r.meta, '$.sync_id') AS sync_id
FROM rc_airbyte_raw_files AS r
JOIN rc_airbyte_streams AS s USING (stream_id)
