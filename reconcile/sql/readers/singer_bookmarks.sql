-- Every stream bookmark of every STATE message (Singer's bookmarks object: stream ->
-- {replication_key, replication_key_value}; a legacy state without "bookmarks" has
-- none), in message order; partitioned bookmarks are kept whole for the reader to
-- refuse (their records do not say their partition).
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
)
SELECT
    run_no, run, line, msg_at, stream,
    json_extract_string(bookmark, '$.replication_key') AS replication_key,
    json_extract(bookmark, '$.replication_key_value') AS replication_key_value,
    json_extract(bookmark, '$.partitions') IS NOT NULL AS partitioned
FROM entries
