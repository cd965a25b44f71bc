-- Airbyte protocol messages (RECORD, STATE, LOG, TRACE ... as JSON Lines), one file
-- per sync, read whole into rc_airbyte_messages: each RECORD and STATE with its sync
-- (the file's place in the sorted list), its line within the sync, and its time
-- (msg_at). Read by the other airbyte_*.sql queries. $files: the syncs' files in
-- order; $names: each file's name as shown (relative to the folder).
--
-- The order of the messages is the truth; the times they carry only label it. Each
-- message is dated at the time it carries (a RECORD's or a TRACE's emitted_at, in
-- milliseconds), and no earlier than the message before it, and at least a
-- microsecond after it where either of the two is a STATE (which carries no time). In
-- microseconds: msg_at = idx + the greatest (time - idx) over the messages up to this
-- one, idx counting those steps. A record emitted after a STATE in the same
-- millisecond (the CDK stamps records in milliseconds), or with a time going back, is
-- then after that STATE, never counted for its claim. Before the first message that
-- carries a time, the times count from a second before the earliest time any message
-- carries; from 2000-01-01 where none carries one.
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
        -- a step of a microsecond from the message before, where either is a STATE
        CAST(coalesce(l.type = 'STATE', false)
             OR coalesce(lag(l.type) OVER (ORDER BY s.sync_no, l.line) = 'STATE', false)
             AS BIGINT) AS step
    FROM lines AS l
    JOIN syncs AS s USING (__file)
),
stepped AS (
    SELECT * EXCLUDE (step),
        CAST(sum(step) OVER (
            ORDER BY sync_no, line ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS BIGINT) AS idx
    FROM ordered
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
    FROM stepped
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
