-- checkpoints, without compare-and-swap (docs/contract.md §3): every per-stream state
-- of every STATE message (rc_airbyte_states), a write of its stream's checkpoint
-- claiming through its cursor field's value, inclusive (the strongest reading of
-- "synced up to"; the receipts judge it). A STATE carries no time: it is dated after
-- every message before it and before every message after it (message_times.sql),
-- so that writes keep the order they were emitted in. Where the destination's raw
-- tables are given (rc_airbyte_raw, else empty), the platform stores a state only
-- once the destination has loaded what came before it: it is dated no earlier than
-- the last time a raw row of its stream emitted before it in its sync reached the
-- final table (plus a microsecond per state of its stream, so that states whose rows
-- were loaded at one time keep their order). A raw row is placed by the RECORD it
-- came from: one of its sync, of its stream, with its key and cursor, emitted in the
-- millisecond it was extracted. By time alone, a row emitted after the state in the
-- state's millisecond would date the state after its loading and back its claim. A
-- raw row no such RECORD places dates no state. A state without the cursor's value (a
-- stream not read yet: {}, or null) claims nothing.
WITH records AS (
    -- each RECORD of a stream with raw rows
    SELECT * FROM rc_airbyte_records
    WHERE stream_id IN (SELECT stream_id FROM rc_airbyte_raw)
),
placed AS (
    -- each raw row with the first line of each sync that emitted it
    SELECT r.stream_id, r.raw_id, r.loaded_at, c.sync_no, min(c.line) AS line
    FROM rc_airbyte_raw AS r
    JOIN records AS c
      ON c.stream_id = r.stream_id AND c.key = r.key AND c.cursor = r.cursor
     AND c.emitted_ms = epoch_ns(r.extracted_at) // 1000000
    WHERE r.loaded_at IS NOT NULL
    GROUP BY ALL
),
dated AS (
    SELECT
        st.*,
        st.msg_at AS emitted_at,
        row_number() OVER (PARTITION BY st.stream_id ORDER BY st.sync_no, st.line) AS nth
    FROM rc_airbyte_states AS st
)
SELECT
    s.stream AS scope_id,
    s.stream AS partition_id,
    st.sync AS attempt_id,
    greatest(
        st.emitted_at,
        make_timestamp_ns(epoch_ns(
            (SELECT max(p.loaded_at) FROM placed AS p
             WHERE p.stream_id = st.stream_id AND p.sync_no = st.sync_no AND p.line < st.line)
        ) + 1000 * st.nth)
    ) AS written_at,
    CAST(NULL AS VARCHAR) AS resume_token,
    CAST(NULL AS VARCHAR) AS page_id,
    -- a state value the cursor's reading cannot read is refused, never a claim of
    -- nothing (which would hide what it skipped)
    CASE
        WHEN rc_source_cursor(json_extract_string(st.blob, s.cursor_path)) IS NULL
            THEN error(format(
                'the STATE of sync {} line {} holds "{}" for stream {}, which is not a value of'
                || ' the kind its cursor field holds: what it claims cannot be read',
                st.sync, st.line, json_extract_string(st.blob, s.cursor_path), st.stream))
        ELSE rc_source_cursor(json_extract_string(st.blob, s.cursor_path))
    END AS watermark,
    true AS watermark_inclusive,
    CAST(NULL AS VARCHAR) AS watermark_event_id,
    CAST(NULL AS VARCHAR) AS ordering
FROM dated AS st
JOIN rc_airbyte_streams AS s USING (stream_id)
WHERE s.sync_mode = 'incremental'
  AND coalesce(json_type(json_extract(st.blob, s.cursor_path)), 'NULL') <> 'NULL'
ORDER BY st.sync_no, st.line
