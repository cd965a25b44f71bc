-- A cursor (a replication key value or an extract's cursor, as text) as the log set's coordinate: int64.
-- Only an integer's own text reads (spaces around it aside): 7.5, 7.0 or 1e3 read as none,
-- never rounded, so an extract's row that holds one is refused (readers/source_refusals).
CREATE OR REPLACE TEMP MACRO rc_source_cursor(t) AS
    CASE WHEN regexp_full_match(trim(t), '[+-]?[0-9]+') THEN TRY_CAST(trim(t) AS BIGINT) END;
