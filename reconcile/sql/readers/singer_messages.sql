-- A Singer message stream (SCHEMA, RECORD, STATE as JSON Lines), one file per run,
-- read whole into rc_singer_messages: each message with its run (the file's place in
-- the sorted list, $runs), its line within the run, and the time it carries or, for a
-- message without one (a STATE), the last time a message before it carried. Read by
-- the other singer_*.sql queries. $files: the runs' files in run order; $names: each
-- file's name as shown (relative to the folder).
WITH scanned AS (
    SELECT
        row_number() OVER () AS seq,  -- the files' lines in order, file after file
        filename AS __file,
        type, stream, record, value, key_properties, bookmark_properties,
        TRY_CAST(time_extracted AS TIMESTAMPTZ) AS time_extracted
    FROM read_json(
        $files,
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
)
SELECT
    r.run_no, r.run, l.line, l.type, l.stream, l.record, l.value, l.key_properties,
    l.bookmark_properties, l.time_extracted,
    -- the time of the last message that carried one, up to this one (across runs);
    -- before the first such message, a second before the earliest time any message
    -- carries (before every timed message, and no stall of years before it); 2000-01-01 where none carries one
    make_timestamp_ns(epoch_ns(coalesce(
        last_value(l.time_extracted IGNORE NULLS) OVER (
            ORDER BY r.run_no, l.line ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ),
        min(l.time_extracted) OVER () - INTERVAL 1 SECOND,
        TIMESTAMPTZ '2000-01-01 00:00:00+00'
    ))) AS msg_at
FROM lines AS l
JOIN runs AS r USING (__file)
