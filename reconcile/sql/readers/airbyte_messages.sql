-- Airbyte protocol messages (RECORD, STATE, LOG, TRACE ... as JSON Lines), one file
-- per sync, read whole into rc_airbyte_messages: each RECORD and STATE with its sync
-- (the file's place in the sorted list), its line within the sync, and the time it
-- carries (a RECORD's emitted_at, in milliseconds) or, for a STATE, the last time a
-- message before it carried (a RECORD's or a TRACE's emitted_at). Read by the other
-- airbyte_*.sql queries. $files: the syncs' files in order; $names: each file's name
-- as shown (relative to the folder).
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
)
SELECT
    s.sync_no, s.sync, l.line, l.type, l.record, l.state,
    -- a RECORD's stream as the catalog names it: namespace.name where it has one
    CASE WHEN json_extract_string(l.record, '$.namespace') IS NULL
         THEN json_extract_string(l.record, '$.stream')
         ELSE json_extract_string(l.record, '$.namespace') || '.'
              || json_extract_string(l.record, '$.stream') END AS stream,
    -- before the first message that carries a time, a second before the earliest time
    -- any message carries (before every timed message); 2000-01-01 where none carries one
    make_timestamp_ns(CAST(round(coalesce(
        last_value(l.emitted_ms IGNORE NULLS) OVER (
            ORDER BY s.sync_no, l.line ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ),
        min(l.emitted_ms) OVER () - 1000,
        946684800000
    ) * 1000) AS BIGINT) * 1000) AS msg_at
FROM lines AS l
JOIN syncs AS s USING (__file)
WHERE l.type IN ('RECORD', 'STATE')
