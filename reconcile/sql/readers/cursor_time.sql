-- A cursor (a replication key value or an extract's cursor, as text) as the log set's coordinate: a
-- timestamp, read as an instant (no zone: UTC) and kept as naive UTC nanoseconds.
CREATE OR REPLACE TEMP MACRO rc_source_cursor(t) AS
    make_timestamp_ns(epoch_ns(TRY_CAST(t AS TIMESTAMPTZ)));
