-- Each stream of the messages: its key properties and replication key (the last
-- SCHEMA's bookmark_properties, else the replication_key its STATE bookmarks name).
WITH schemas AS (
    SELECT stream, arg_max(key_properties, (run_no, line)) AS key_properties,
           arg_max(bookmark_properties[1], (run_no, line)) AS bookmark
    FROM rc_singer_messages
    WHERE type = 'SCHEMA'
    GROUP BY stream
),
named AS (
    SELECT b.stream, arg_max(b.replication_key, (b.run_no, b.line)) AS replication_key
    FROM rc_singer_bookmarks AS b
    WHERE b.replication_key IS NOT NULL
    GROUP BY b.stream
)
SELECT
    s.stream,
    s.key_properties,
    coalesce(s.bookmark, n.replication_key) AS replication_key
FROM schemas AS s
LEFT JOIN named AS n USING (stream)
ORDER BY s.stream
