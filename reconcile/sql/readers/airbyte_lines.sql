-- Airbyte protocol messages (RECORD, STATE, LOG, TRACE ... as JSON Lines), one file
-- per sync, read whole into rc_airbyte_lines: each message with its sync (the file's
-- place in the sorted list), its line within the sync, and the time it carries (a
-- RECORD's or a TRACE's emitted_at, in milliseconds). $files: the syncs' files in
-- order; $reads: the same, as DuckDB reads each as itself (db.glob_literal); $names:
-- each file's name as shown (relative to the folder).
-- rc_airbyte_messages keeps the RECORDs and STATEs, with their times
-- (message_times.sql). An emitted_at that is no number, or one past the times the
-- engine holds (1677 to 2262), is refused by its sync and line: it was taken for no
-- time, the record dated as one without.
WITH scanned AS (
    SELECT
        row_number() OVER () AS seq,  -- the files' lines in order, file after file
        filename AS __file,
        type, record, state,
        coalesce(json_extract(record, '$.emitted_at'), json_extract(trace, '$.emitted_at'))
            AS emitted
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
SELECT s.sync_no, s.sync, l.line, l.type, l.record, l.state,
    CASE
        WHEN l.emitted IS NULL OR json_type(l.emitted) = 'NULL' THEN NULL
        -- a number, or text that is one ("1767225600000")
        WHEN coalesce(abs(TRY_CAST(json_extract_string(l.emitted, '$') AS DOUBLE)) >= 9.2e12, true)
          OR json_type(l.emitted) NOT IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'VARCHAR')
            THEN error(format('{}, line {}: emitted_at {} is no time (milliseconds since 1970,'
                              || ' 1677 to 2262): when the message was emitted cannot be read',
                              s.sync, l.line, left(CAST(l.emitted AS VARCHAR), 60)))
        ELSE TRY_CAST(json_extract_string(l.emitted, '$') AS DOUBLE)
    END AS emitted_ms
FROM lines AS l
JOIN syncs AS s USING (__file)
