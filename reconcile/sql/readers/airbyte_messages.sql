-- Airbyte protocol messages (RECORD, STATE, LOG, TRACE ... as JSON Lines), one file
-- per sync, read whole into rc_airbyte_messages: each RECORD and STATE with its sync
-- (the file's place in the sorted list), its line within the sync, and its time
-- (msg_at). Read by the other airbyte_*.sql queries. $files: the syncs' files in
-- order; $names: each file's name as shown (relative to the folder).
--
-- The order of the messages is the truth; the times they carry only label it. A
-- message is dated at the time it carries (a RECORD's or a TRACE's emitted_at, in
-- milliseconds) or, without one (a STATE), the latest time a message before it
-- carried, and then moved later where needed so that every STATE comes a microsecond
-- or more after every message before it, and every message after a STATE a
-- microsecond or more after it: in microseconds, msg_at = idx + max over the messages
-- up to this one of (time - idx), where idx counts two per STATE before the message,
-- one for a STATE itself. A record emitted after a STATE in the same millisecond (the
-- CDK stamps records in milliseconds), or with a time going back, is then after that
-- STATE, never counted for it. Before the first message that carries a time, the
-- times count from a second before the earliest time any message carries; from
-- 2000-01-01 where none carries one.
WITH scanned AS (
    SELECT
        row_number() OVER () AS seq,  -- the files' lines in order, file after file
        filename AS __file,
        type, record, state,
        coalesce(
            TRY_CAST(json_extract_string(record, '$.emitted_at') AS DOUBLE),
            TRY_CAST(json_extract_string(trace, '$.emitted_at') AS DOUBLE)
        ) AS emitted_ms
    FROM read_json(
        $files,
        format = 'newline_delimited',
        maximum_object_size = 268435456,  -- a message up to 256 MiB (DuckDB's default: 16)
        columns = {'type': 'VARCHAR', 'record': 'JSON', 'state': 'JSON', 'trace': 'JSON'},
        filename = true
    )
),
lines AS (
    -- each message's line within its own file
    SELECT *, seq - min(seq) OVER (PARTITION BY __file) + 1 AS line FROM scanned
),
syncs AS (
    SELECT unnest($files) AS __file, unnest($names) AS sync, generate_subscripts($files, 1) AS sync_no
),
ordered AS (
    SELECT
        s.sync_no, s.sync, l.line, l.type, l.record, l.state,
        CAST(round(l.emitted_ms * 1000) AS BIGINT) AS time_us,
        CAST(2 * count(*) FILTER (WHERE l.type = 'STATE') OVER w AS BIGINT)
            - CAST(coalesce(l.type = 'STATE', false) AS BIGINT) AS idx
    FROM lines AS l
    JOIN syncs AS s USING (__file)
    WINDOW w AS (ORDER BY s.sync_no, l.line ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
),
dated AS (
    SELECT *,
        make_timestamp_ns(1000 * (idx + coalesce(
            max(time_us - idx) OVER (
                ORDER BY sync_no, line ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
            ),
            min(time_us) OVER () - 1000000,
            946684800000000
        ))) AS msg_at
    FROM ordered
)
SELECT
    l.sync_no, l.sync, l.line, l.type, l.record, l.state,
    -- a RECORD's stream: its namespace and name (as rc_airbyte_streams' stream_id), and
    -- as shown (namespace.name where it has a namespace)
    CAST(to_json([json_extract_string(l.record, '$.namespace'),
                  json_extract_string(l.record, '$.stream')]) AS VARCHAR) AS stream_id,
    CASE WHEN json_extract_string(l.record, '$.namespace') IS NULL
         THEN json_extract_string(l.record, '$.stream')
         ELSE json_extract_string(l.record, '$.namespace') || '.'
              || json_extract_string(l.record, '$.stream') END AS stream,
    l.msg_at
FROM dated AS l
WHERE l.type IN ('RECORD', 'STATE')
