-- A Singer message stream (SCHEMA, RECORD, STATE as JSON Lines), one file per run,
-- read whole into rc_singer_messages: each message with its run (the file's place in
-- the sorted list, $runs), its line within the run, and its time (msg_at). Read by the
-- other singer_*.sql queries. $files: the runs' files in run order; $names: each
-- file's name as shown (relative to the folder).
--
-- The order of the messages is the truth; the times they carry only label it. Each
-- message is dated at the time it carries (a RECORD's time_extracted), and no earlier
-- than the message before it, and at least a microsecond after it where either of the
-- two is a STATE (which carries no time). In microseconds: msg_at = idx + the greatest
-- (time - idx) over the messages up to this one, idx counting those steps. A record
-- emitted after a STATE in the same instant, with a time going back, or with no time,
-- is then after that STATE, never counted for its claim; a record whose time keeps
-- the order keeps its time. Before the first message that carries a time, the times
-- count from a second before the earliest time any message carries (before every
-- timed message, and no stall of years before it); from 2000-01-01 where none
-- carries one.
WITH scanned AS (
    SELECT
        row_number() OVER () AS seq,  -- the files' lines in order, file after file
        filename AS __file,
        type, stream, record, value, key_properties, bookmark_properties,
        time_extracted AS time_text
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
),
ordered AS (
    SELECT
        r.run_no, r.run, l.line, l.type, l.stream, l.record, l.value, l.key_properties,
        l.bookmark_properties,
        -- RFC 3339 (lower-case t and z allowed, §5.6); a time that cannot be read is
        -- refused, never taken as no time
        CASE WHEN l.time_text IS NULL THEN NULL
             WHEN TRY_CAST(regexp_replace(regexp_replace(l.time_text, '^(\d{4}-\d{2}-\d{2})t', '\1T'), 'z$', 'Z')
                           AS TIMESTAMPTZ) IS NULL
                 THEN error(format('{}, line {}: time_extracted "{}" is no RFC 3339 time: when'
                                   || ' the message was extracted cannot be read', r.run, l.line, l.time_text))
             ELSE CAST(regexp_replace(regexp_replace(l.time_text, '^(\d{4}-\d{2}-\d{2})t', '\1T'), 'z$', 'Z')
                       AS TIMESTAMPTZ)
        END AS time_extracted,
        -- a step of a microsecond from the message before, where either is a STATE
        CAST(coalesce(l.type = 'STATE', false)
             OR coalesce(lag(l.type) OVER (ORDER BY r.run_no, l.line) = 'STATE', false)
             AS BIGINT) AS step
    FROM lines AS l
    JOIN runs AS r USING (__file)
),
stepped AS (
    SELECT * EXCLUDE (step),
        CAST(sum(step) OVER (
            ORDER BY run_no, line ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS BIGINT) AS idx
    FROM ordered
)
SELECT
    run_no, run, line, type, stream, record, value, key_properties, bookmark_properties,
    time_extracted,
    make_timestamp_ns(1000 * (idx + coalesce(
        max(epoch_us(time_extracted) - idx) OVER (
            ORDER BY run_no, line ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ),
        min(epoch_us(time_extracted)) OVER () - 1000000,
        epoch_us(TIMESTAMPTZ '2000-01-01 00:00:00+00')
    ))) AS msg_at
FROM stepped
