-- Every stream bookmark of every STATE message (Singer's bookmarks object: stream ->
-- {replication_key, replication_key_value}; a legacy state without "bookmarks" has
-- none), in message order. A partitioned bookmark ("partitions": [{context,
-- replication_key, replication_key_value}], the Singer SDK's state partitioning)
-- gives a row per partition, with its context; an unpartitioned one a row with none.
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
    SELECT run_no, run, line, msg_at, stream, bookmark, CAST(NULL AS JSON) AS context
    FROM entries
    WHERE json_extract(bookmark, '$.partitions') IS NULL
    UNION ALL
    SELECT run_no, run, line, msg_at, stream, part, json_extract(part, '$.context')
    FROM (
        SELECT *, unnest(from_json(json_extract(bookmark, '$.partitions'), '["JSON"]')) AS part
        FROM entries
        WHERE json_type(bookmark, '$.partitions') = 'ARRAY'
    )
)
SELECT
    run_no, run, line, msg_at, stream,
    json_extract_string(bookmark, '$.replication_key') AS replication_key,
    json_extract(bookmark, '$.replication_key_value') AS replication_key_value,
    context
FROM flat
