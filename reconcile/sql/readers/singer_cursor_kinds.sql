-- The JSON types of every replication key value the messages hold (records' and
-- bookmarks'): the reader takes int64 when all are integers, else timestamps.
SELECT DISTINCT json_type(v) AS kind
FROM (
    SELECT from_json(m.record, '"MAP(VARCHAR, JSON)"')[s.replication_key] AS v
    FROM rc_singer_messages AS m
    JOIN rc_singer_streams AS s USING (stream)
    WHERE m.type = 'RECORD'
    UNION ALL
    SELECT claimed FROM rc_singer_claims
)
WHERE v IS NOT NULL AND json_type(v) <> 'NULL'  -- a JSON null is no value
