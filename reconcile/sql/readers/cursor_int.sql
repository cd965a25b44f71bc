-- A cursor (a replication key value or an extract's cursor, as text) as the log set's coordinate: int64.
CREATE OR REPLACE TEMP MACRO rc_source_cursor(t) AS TRY_CAST(t AS BIGINT);
