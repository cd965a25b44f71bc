-- The JSON types of every replication key value the messages hold (records' and
-- bookmarks'), each with its first value by run and line (example: "run, line n:
-- value"), for a refusal to show where the kinds meet: the reader takes int64 when
-- all are integers, else timestamps. An integer past 64 bits is a JSON DOUBLE to
-- DuckDB: counted an integer here, so that the value itself is refused where it is
-- read, by its run and line, rather than the whole log set as holding decimals.
SELECT kind, arg_min(run || ', line ' || line || ': ' || left(CAST(v AS VARCHAR), 40), (run_no, line))
    AS example
FROM (
    SELECT
        CASE WHEN json_type(v) = 'DOUBLE' AND regexp_full_match(CAST(v AS VARCHAR), '-?[0-9]+')
             THEN 'BIGINT' ELSE json_type(v) END AS kind,
        *
    FROM (
        SELECT m.run_no, m.run, m.line, from_json(m.record, '"MAP(VARCHAR, JSON)"')[s.replication_key] AS v
        FROM rc_singer_messages AS m
        JOIN rc_singer_streams AS s USING (stream)
        WHERE m.type = 'RECORD'
        UNION ALL
        SELECT run_no, run, line, claimed FROM rc_singer_claims
    )
    WHERE v IS NOT NULL AND json_type(v) <> 'NULL'  -- a JSON null is no value
)
GROUP BY kind
