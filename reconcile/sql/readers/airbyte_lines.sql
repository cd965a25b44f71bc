-- Airbyte protocol messages (RECORD, STATE, LOG, TRACE ... as JSON Lines), one file
-- per sync, read whole into rc_airbyte_lines: each message with its sync (the file's
-- place in the sorted list), its line within the sync, and the time it carries (a
-- RECORD's or a TRACE's emitted_at, in milliseconds). $files: the syncs' files in
-- order; $reads: the same, as DuckDB reads each as itself (db.glob_literal); $names:
-- each file's name as shown (relative to the folder).
-- rc_airbyte_messages keeps the RECORDs and STATEs, with their times
-- (message_times.sql).
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
        $reads,
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
SELECT s.sync_no, s.sync, l.line, l.type, l.record, l.state, l.emitted_ms
FROM lines AS l
JOIN syncs AS s USING (__file)
