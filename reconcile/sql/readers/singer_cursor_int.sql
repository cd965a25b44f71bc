-- A Singer cursor (replication key value, as text) as the log set's coordinate: int64.
CREATE OR REPLACE TEMP MACRO rc_singer_cursor(t) AS TRY_CAST(t AS BIGINT);
