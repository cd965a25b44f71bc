-- The JSON types of every replication key value the messages hold (records' and
-- bookmarks'): the reader takes int64 when all are integers, else timestamps.
-- An integer past 64 bits is a JSON DOUBLE to DuckDB: counted an integer here, so
-- that the value itself is refused where it is read, by its run and line, rather than
-- the whole log set as holding decimals.
SELECT DISTINCT
    CASE WHEN json_type(v) = 'DOUBLE' AND regexp_full_match(CAST(v AS VARCHAR), '-?[0-9]+')
         THEN 'BIGINT' ELSE json_type(v) END AS kind
FROM (
    SELECT from_json(m.record, '"MAP(VARCHAR, JSON)"')[s.replication_key] AS v
    FROM rc_singer_messages AS m
    JOIN rc_singer_streams AS s USING (stream)
    WHERE m.type = 'RECORD'
    UNION ALL
    SELECT claimed FROM rc_singer_claims
)
WHERE v IS NOT NULL AND json_type(v) <> 'NULL'  -- a JSON null is no value
