-- rc_airbyte_messages: each RECORD and STATE of the syncs (rc_airbyte_lines) with its
-- time, msg_at (message_times.sql), and a RECORD's stream. Read by the other
-- airbyte_*.sql queries.
SELECT
    l.sync_no, l.sync, l.line, l.type, l.record, l.state,
    -- a RECORD's stream: its namespace and name (as rc_airbyte_streams' stream_id), and
    -- as shown (namespace.name where it has a namespace)
    CAST(to_json([json_extract_string(l.record, '$.namespace'),
                  json_extract_string(l.record, '$.stream')]) AS VARCHAR) AS stream_id,
    CASE WHEN json_extract_string(l.record, '$.namespace') IS NULL
         THEN json_extract_string(l.record, '$.stream')
         ELSE json_extract_string(l.record, '$.namespace') || '.'
              || json_extract_string(l.record, '$.stream') END AS stream,
    t.msg_at
FROM rc_airbyte_lines AS l
JOIN rc_message_times AS t ON t.run_no = l.sync_no AND t.line = l.line
WHERE l.type IN ('RECORD', 'STATE')
ORDER BY l.sync_no, l.line
