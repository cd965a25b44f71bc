-- What the Airbyte reader refuses, in one pass over the streams, states and records:
-- a stream the catalog names twice; incremental streams whose names read alike
-- (namespace shop and name items, and name shop.items without namespace: one scope
-- name), that name and the streams (records, states and the catalog's streams are
-- matched by namespace and name, stream_id, never by that name); the first STATE
-- message not of the protocol's shape (a kind it does not have, a stream state
-- without its stream's name, global stream states that are no list, legacy data that
-- is no object, a stream state that is no object, the state of a stream the catalog
-- does not name), the first incremental stream with no primary key or no cursor
-- field, the first state of an incremental stream without its cursor field's value
-- (a per-partition or a concurrent, sliced state: its records do not say their
-- partition or slice), and the first stream that records name and the catalog does
-- not (or a record without a stream), and the first record of an incremental stream
-- without a value for its primary key or its cursor field; and how many RECORD and
-- STATE messages there are, and states of incremental streams that hold their cursor
-- (none of either is refused); and the first line that is no message of the protocol
-- (no type, or a type the protocol does not have: "record", "State"), which the
-- reader would otherwise leave out, and the first entry of the catalog that is no
-- configured stream (no stream or no sync mode: a discovered catalog's entries).
WITH described AS (
    SELECT *, name || coalesce(' (namespace ' || namespace || ')', ' (no namespace)') AS shown
    FROM rc_airbyte_streams
)
SELECT
    (SELECT min(shown) FROM (
        SELECT min(shown) AS shown FROM described GROUP BY stream_id HAVING count(*) > 1
    )) AS twice,
    (SELECT arg_min([stream, shown], stream) FROM (
        SELECT stream, string_agg(shown, ' and ' ORDER BY stream_id) AS shown
        FROM described WHERE sync_mode = 'incremental'
        GROUP BY stream HAVING count(*) > 1
    )) AS alike,
    (SELECT arg_min(sync || ', line ' || line, (sync_no, line)) FROM (
        SELECT sync_no, sync, line FROM (
            SELECT sync_no, sync, line, state, coalesce(json_extract_string(state, '$.type'), 'LEGACY') AS kind
            FROM rc_airbyte_messages WHERE type = 'STATE'
        )
        WHERE kind NOT IN ('STREAM', 'GLOBAL', 'LEGACY')
           OR (kind = 'STREAM'
               AND coalesce(json_type(state, '$.stream.stream_descriptor.name'), '') <> 'VARCHAR')
           OR (kind = 'GLOBAL'
               AND coalesce(json_type(state, '$.global.stream_states'), '') <> 'ARRAY')
           OR (kind = 'LEGACY' AND coalesce(json_type(state, '$.data'), '') <> 'OBJECT')
        UNION ALL
        SELECT sync_no, sync, line FROM rc_airbyte_states
        WHERE stream IS NULL OR (blob IS NOT NULL AND json_type(blob) NOT IN ('OBJECT', 'NULL'))
           -- a stream's state the catalog does not name would claim for no stream
           OR stream_id NOT IN (SELECT stream_id FROM rc_airbyte_streams)
    )) AS malformed,
    (SELECT min(stream) FROM rc_airbyte_streams
     WHERE sync_mode = 'incremental' AND (len(coalesce(primary_key, [])) = 0
                                          OR len(coalesce(cursor_field, [])) = 0))
        AS unkeyed,
    (SELECT min(st.stream || ': ' || CAST(st.blob AS VARCHAR)) FROM rc_airbyte_states AS st
     JOIN rc_airbyte_streams AS s USING (stream_id)
     WHERE s.sync_mode = 'incremental' AND st.blob IS NOT NULL
       AND json_extract(st.blob, s.cursor_path) IS NULL
       AND CAST(st.blob AS VARCHAR) <> '{}') AS unread_state,
    (SELECT min(coalesce(
                json_extract_string(record, '$.stream') || coalesce(
                    ' (namespace ' || json_extract_string(record, '$.namespace') || ')', ''),
                '(none)'))
     FROM rc_airbyte_messages
     WHERE type = 'RECORD'
       AND (stream IS NULL OR stream_id NOT IN (SELECT stream_id FROM rc_airbyte_streams)))
        AS uncatalogued,
    (SELECT arg_min(m.sync || ', line ' || m.line, (m.sync_no, m.line))
     FROM rc_airbyte_messages AS m
     JOIN rc_airbyte_streams AS s USING (stream_id)
     WHERE m.type = 'RECORD' AND s.sync_mode = 'incremental'
       AND list_bool_or(list_transform(
               list_append(s.key_paths, s.cursor_path),
               lambda p: coalesce(json_type(json_extract(m.record, '$.data'), p), 'NULL') = 'NULL'
           ))) AS incomplete,
    (SELECT count(*) FROM rc_airbyte_messages) AS messages,
    (SELECT count(*) FROM rc_airbyte_states AS st
     JOIN rc_airbyte_streams AS s USING (stream_id)
     WHERE s.sync_mode = 'incremental' AND st.blob IS NOT NULL
       AND coalesce(json_type(json_extract(st.blob, s.cursor_path)), 'NULL') <> 'NULL') AS cursors,
    (SELECT arg_min(sync || ', line ' || line || ' (' || coalesce('type ' || type, 'no type') || ')',
                    (sync_no, line))
     FROM rc_airbyte_lines
     WHERE type IS NULL
        OR type NOT IN ('RECORD', 'STATE', 'LOG', 'TRACE', 'CONTROL', 'SPEC',
                        'CONNECTION_STATUS', 'CATALOG', 'DESTINATION_CATALOG')) AS strange,
    (SELECT min(n) FROM (
        SELECT generate_subscripts(streams, 1) AS n, unnest(streams) AS e FROM rc_airbyte_catalog_raw
    ) WHERE e.stream IS NULL OR e.stream.name IS NULL OR e.sync_mode IS NULL) AS unconfigured
