-- A Singer message stream (SCHEMA, RECORD, STATE as JSON Lines), one file per run,
-- read whole into rc_singer_lines: each message with its run (the file's place in the
-- sorted list, $runs), its line within the run, and the time it carries (a RECORD's
-- time_extracted; RFC 3339, lower-case t and z allowed; one that is no time is
-- refused). $files: the runs' files in run order; $reads: the same, as DuckDB reads
-- each as itself (db.glob_literal); $names: each file's name as shown (relative to the
-- folder). rc_singer_messages adds each message's time
-- (message_times.sql).
WITH scanned AS (
    SELECT
        row_number() OVER () AS seq,  -- the files' lines in order, file after file
        filename AS __file,
        type, stream, record, value, key_properties, bookmark_properties,
        time_extracted AS time_text
    FROM read_json(
        $reads,
        format = 'newline_delimited',
        maximum_object_size = 268435456,  -- a message up to 256 MiB (DuckDB's default: 16)
        columns = {
            'type': 'VARCHAR', 'stream': 'VARCHAR', 'record': 'JSON', 'value': 'JSON',
            'key_properties': 'VARCHAR[]', 'bookmark_properties': 'VARCHAR[]',
            'time_extracted': 'VARCHAR'
        },
        filename = true
    )
),
lines AS (
    -- each message's line within its own file
    SELECT *, seq - min(seq) OVER (PARTITION BY __file) + 1 AS line FROM scanned
),
runs AS (
    SELECT unnest($files) AS __file, unnest($names) AS run, generate_subscripts($files, 1) AS run_no
),
ordered AS (
    SELECT
        r.run_no, r.run, l.line, l.type, l.stream, l.record, l.value, l.key_properties,
        l.bookmark_properties,
        -- RFC 3339 (lower-case t and z allowed, §5.6); a time that cannot be read is
        -- refused, never taken as no time
        CASE WHEN l.time_text IS NULL THEN NULL
             WHEN rc_no_clock(l.time_text) OR TRY_CAST(regexp_replace(regexp_replace(l.time_text, '^(\d{4}-\d{2}-\d{2})t', '\1T'), 'z$', 'Z')
                           AS TIMESTAMPTZ) IS NULL
                 THEN error(format('{}, line {}: time_extracted "{}" is no RFC 3339 time: when'
                                   || ' the message was extracted cannot be read', r.run, l.line, l.time_text))
             ELSE CAST(regexp_replace(regexp_replace(l.time_text, '^(\d{4}-\d{2}-\d{2})t', '\1T'), 'z$', 'Z')
                       AS TIMESTAMPTZ)
        END AS time_extracted
    FROM lines AS l
    JOIN runs AS r USING (__file)
)
SELECT * FROM ordered
