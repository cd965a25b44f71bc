-- What the Airbyte reader refuses, in one pass over the streams, states and records:
-- the first incremental stream with no primary key or no cursor field, the first
-- state of an incremental stream without its cursor field's value (a per-partition or
-- a concurrent, sliced state: its records do not say their partition or slice), and
-- the first stream that records name and the catalog does not.
SELECT
    (SELECT min(stream) FROM rc_airbyte_streams
     WHERE sync_mode = 'incremental' AND (len(coalesce(primary_key, [])) = 0
                                          OR len(coalesce(cursor_field, [])) = 0))
        AS unkeyed,
    (SELECT min(st.stream || ': ' || CAST(st.blob AS VARCHAR)) FROM rc_airbyte_states AS st
     JOIN rc_airbyte_streams AS s USING (stream)
     WHERE s.sync_mode = 'incremental' AND st.blob IS NOT NULL
       AND json_extract(st.blob, s.cursor_path) IS NULL
       AND CAST(st.blob AS VARCHAR) <> '{}') AS unread_state,
    (SELECT min(stream) FROM rc_airbyte_messages
     WHERE type = 'RECORD' AND stream NOT IN (SELECT stream FROM rc_airbyte_streams))
        AS uncatalogued
