-- Every stream bookmark of every STATE message (Singer's bookmarks object: stream ->
-- {replication_key, replication_key_value}; a legacy state without "bookmarks" has
-- none), in message order. A partitioned bookmark ("partitions": [{context,
-- replication_key, replication_key_value}], the Singer SDK's state partitioning)
-- gives a row per partition, with its context; an unpartitioned one a row with none. A
-- bookmark of another shape (not an object, partitions not a list, a context not an
-- object) is a row marked malformed, which the reader refuses.
WITH states AS (
    SELECT run_no, run, line, msg_at, value
    FROM rc_singer_messages
    WHERE type = 'STATE'
),
entries AS (
    SELECT
        run_no, run, line, msg_at,
        unnest(map_keys(m)) AS stream,
        unnest(map_values(m)) AS bookmark
    FROM (
        SELECT *, from_json(json_extract(value, '$.bookmarks'), '"MAP(VARCHAR, JSON)"') AS m
        FROM states
        WHERE json_type(value, '$.bookmarks') = 'OBJECT'
    )
),
flat AS (
    SELECT run_no, run, line, msg_at, stream, bookmark, CAST(NULL AS JSON) AS context,
           json_type(bookmark) <> 'OBJECT' AS malformed
    FROM entries
    WHERE json_extract(bookmark, '$.partitions') IS NULL
    UNION ALL
    SELECT run_no, run, line, msg_at, stream, part, json_extract(part, '$.context'),
           coalesce(json_type(part, '$.context'), 'NULL') <> 'OBJECT'
    FROM (
        SELECT *, unnest(from_json(json_extract(bookmark, '$.partitions'), '["JSON"]')) AS part
        FROM entries
        WHERE json_type(bookmark, '$.partitions') = 'ARRAY'
    )
    UNION ALL  -- partitions that are not a list: kept, for the reader to refuse
    SELECT run_no, run, line, msg_at, stream, bookmark, NULL, true
    FROM entries
    WHERE json_type(bookmark, '$.partitions') <> 'ARRAY'
)
SELECT
    run_no, run, line, msg_at, stream,
    json_extract_string(bookmark, '$.replication_key') AS replication_key,
    json_extract(bookmark, '$.replication_key_value') AS replication_key_value,
    CASE WHEN NOT malformed THEN context END AS context,
    malformed,
    bookmark
FROM flat
UNION ALL  -- a bookmarks member that is not an object: kept, for the reader to refuse
SELECT run_no, run, line, msg_at, NULL, NULL, NULL, NULL, true, NULL
FROM states
WHERE json_extract(value, '$.bookmarks') IS NOT NULL AND json_type(value, '$.bookmarks') <> 'OBJECT' 
