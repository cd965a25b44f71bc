-- The JSON types of every cursor value of the incremental streams (records' and
-- states'), each with its first value by sync and line (example: "sync, line n:
-- value"), for a refusal to show where the kinds meet: the reader takes int64 when
-- all are integers, else timestamps. An integer past 64 bits is a JSON DOUBLE to
-- DuckDB: counted an integer here, so that the value itself is refused where it is
-- read, by its run and line, rather than the whole log set as holding decimals.
SELECT kind, arg_min(sync || ', line ' || line || ': ' || left(CAST(v AS VARCHAR), 40), (sync_no, line))
    AS example
FROM (
    SELECT
        CASE WHEN json_type(v) = 'DOUBLE' AND regexp_full_match(CAST(v AS VARCHAR), '-?[0-9]+')
             THEN 'BIGINT' ELSE json_type(v) END AS kind,
        *
    FROM (
        SELECT m.sync_no, m.sync, m.line, json_extract(json_extract(m.record, '$.data'), s.cursor_path) AS v
        FROM rc_airbyte_messages AS m
        JOIN rc_airbyte_streams AS s USING (stream_id)
        WHERE m.type = 'RECORD' AND s.sync_mode = 'incremental'
        UNION ALL
        SELECT st.sync_no, st.sync, st.line, json_extract(st.blob, s.cursor_path)
        FROM rc_airbyte_states AS st
        JOIN rc_airbyte_streams AS s USING (stream_id)
        WHERE s.sync_mode = 'incremental'
    )
    WHERE v IS NOT NULL AND json_type(v) <> 'NULL'  -- a JSON null is no value
)
GROUP BY kind
