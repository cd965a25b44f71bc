-- What the dlt reader refuses, in one pass over the cursors and rows: the first
-- stream whose cursor went down (a cursor read by last_value_func=min), and the first
-- load id of a row that is neither a completed load's nor a time (its receipt would
-- have no time).
SELECT
    (SELECT min(stream) FROM rc_dlt_cursors
     WHERE rc_source_cursor(last_value) < rc_source_cursor(start_value)) AS downwards,
    (SELECT min(r.load_id) FROM rc_dlt_rows AS r
     WHERE r.load_id NOT IN (SELECT load_id FROM rc_dlt_loads)
       AND TRY_CAST(r.load_id AS DOUBLE) IS NULL) AS untimed
