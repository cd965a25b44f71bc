-- A cursor (a replication key value or an extract's cursor, as text) as the log set's coordinate: a
-- timestamp, read as an instant (no zone: UTC) and kept as naive UTC nanoseconds. DuckDB's
-- TIMESTAMPTZ, which reads the offset, holds microseconds: the fraction is cut there for the
-- cast and its seventh to ninth digits added back (digits past the ninth dropped), so a cursor
-- keeps its nanoseconds; lower-case t and z read as upper (RFC 3339 §5.6). NULL where the text
-- is no timestamp (an offset no clock has included: rc_no_clock, of readers/clock, which
-- each reader installs first), or one past the times the engine holds.
CREATE OR REPLACE TEMP MACRO rc_source_cursor(t) AS
    CASE WHEN NOT rc_no_clock(t) THEN TRY(make_timestamp_ns(
        epoch_ns(TRY_CAST(upper(regexp_replace(t, '(\.[0-9]{6})[0-9]+', '\1')) AS TIMESTAMPTZ))
        + CAST(rpad(regexp_extract(t, '\.[0-9]{6}([0-9]{1,3})', 1), 3, '0') AS BIGINT)
    )) END;
