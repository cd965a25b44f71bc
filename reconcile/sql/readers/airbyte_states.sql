-- Every per-stream state of every STATE message, in message order, whatever its kind:
-- STREAM (state.stream), GLOBAL (each of state.global.stream_states; the shared
-- state, a CDC position, is not a cursor) and LEGACY (state.data, a stream's name ->
-- state, the stream without namespace; a state with no type is legacy too). Each with
-- its stream's namespace and name (stream_id, as rc_airbyte_streams'), and as shown.
WITH states AS (
    SELECT sync_no, sync, line, msg_at, state,
           coalesce(json_extract_string(state, '$.type'), 'LEGACY') AS kind
    FROM rc_airbyte_messages
    WHERE type = 'STATE'
),
per_stream AS (
    SELECT sync_no, sync, line, msg_at, kind,
           json_extract(state, '$.stream.stream_descriptor') AS descriptor,
           json_extract(state, '$.stream.stream_state') AS blob
    FROM states WHERE kind = 'STREAM'
    UNION ALL
    SELECT sync_no, sync, line, msg_at, kind,
           json_extract(entry, '$.stream_descriptor'), json_extract(entry, '$.stream_state')
    FROM (
        SELECT *, unnest(from_json(json_extract(state, '$.global.stream_states'), '["JSON"]'))
            AS entry
        FROM states WHERE kind = 'GLOBAL'
    )
    UNION ALL
    SELECT sync_no, sync, line, msg_at, kind,
           json_object('name', unnest(map_keys(m))), unnest(map_values(m))
    FROM (
        SELECT *, from_json(json_extract(state, '$.data'), '"MAP(VARCHAR, JSON)"') AS m
        FROM states WHERE kind = 'LEGACY' AND json_type(state, '$.data') = 'OBJECT'
    )
)
SELECT
    sync_no, sync, line, msg_at, kind,
    CAST(to_json([json_extract_string(descriptor, '$.namespace'),
                  json_extract_string(descriptor, '$.name')]) AS VARCHAR) AS stream_id,
    CASE WHEN json_extract_string(descriptor, '$.namespace') IS NULL
         THEN json_extract_string(descriptor, '$.name')
         ELSE json_extract_string(descriptor, '$.namespace') || '.'
              || json_extract_string(descriptor, '$.name') END AS stream,
    blob
FROM per_stream
