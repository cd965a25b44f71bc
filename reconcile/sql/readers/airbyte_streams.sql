-- Each stream of the configured catalog (rc_airbyte_catalog_raw: the catalog.json a
-- sync ran with): its identity (stream_id: its namespace and name, a JSON array, so
-- that no namespace is another than any text, and no name with a dot reads as a
-- namespace: records and states are matched to it by that alone), its name as scopes
-- and the extract name it (namespace.name where it has a namespace), its sync mode,
-- primary key and cursor field, each a path of JSON keys (an empty one in the
-- configured stream: the source's default).
WITH streams AS (
    SELECT unnest(streams) AS s FROM rc_airbyte_catalog_raw
)
SELECT
    CAST(to_json([s.stream.namespace, s.stream.name]) AS VARCHAR) AS stream_id,
    CASE WHEN s.stream.namespace IS NULL THEN s.stream.name
         ELSE s.stream.namespace || '.' || s.stream.name END AS stream,
    s.stream.name AS name,
    s.stream.namespace AS namespace,
    s.sync_mode AS sync_mode,
    coalesce(nullif(s.primary_key, []), s.stream.source_defined_primary_key) AS primary_key,
    coalesce(nullif(s.cursor_field, []), s.stream.default_cursor_field) AS cursor_field,
    -- a JSON path of each: '$."a"."b"', a key's backslashes and quotes escaped
    list_transform(
        coalesce(nullif(s.primary_key, []), s.stream.source_defined_primary_key),
        lambda p: '$' || array_to_string(list_transform(p, lambda k: '."' || replace(replace(k, '\', '\\'), '"', '\"') || '"'), '')
    ) AS key_paths,
    '$' || array_to_string(
        list_transform(coalesce(nullif(s.cursor_field, []), s.stream.default_cursor_field),
                       lambda k: '."' || replace(replace(k, '\', '\\'), '"', '\"') || '"'), ''
    ) AS cursor_path
FROM streams
ORDER BY stream, stream_id
