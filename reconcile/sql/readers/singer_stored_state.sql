-- Meltano's stored state ($file: `meltano state get` output, {"singer_state": ...}; a
-- state backend's file, {"completed": {"singer_state": ...}, "partial": {...}}; or a
-- bare Singer state, {"bookmarks": ...}) as the STATE messages of one more run, after
-- every run: the completed state, then the partial one (Meltano merges it over the
-- completed one for the next run), dated a microsecond and two after the last message.
WITH doc AS (
    SELECT json AS doc FROM read_json_objects($file, format = 'auto')
),
states AS (
    SELECT 1 AS line, coalesce(
        json_extract(doc, '$.completed.singer_state'),
        json_extract(doc, '$.singer_state'),
        CASE WHEN json_extract(doc, '$.bookmarks') IS NOT NULL THEN doc END
    ) AS value
    FROM doc
    UNION ALL
    SELECT 2, json_extract(doc, '$.partial.singer_state') FROM doc
)
SELECT
    (SELECT max(run_no) + 1 FROM rc_singer_messages) AS run_no,
    $name AS run,
    line,
    'STATE' AS type,
    CAST(NULL AS VARCHAR) AS stream,
    CAST(NULL AS JSON) AS record,
    value,
    CAST(NULL AS VARCHAR[]) AS key_properties,
    CAST(NULL AS VARCHAR[]) AS bookmark_properties,
    CAST(NULL AS TIMESTAMPTZ) AS time_extracted,
    (SELECT max(msg_at) FROM rc_singer_messages) + line * INTERVAL 1 MICROSECOND AS msg_at
FROM states
WHERE value IS NOT NULL
