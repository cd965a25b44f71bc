-- What the dlt reader refuses, in one pass over the cursors and rows: the first
-- stream whose cursor went down (a cursor read by last_value_func=min: last_value
-- below the run's start, or a row of the load above the last_value it stored), the
-- first load id of a row that is neither a completed load's nor a time (its receipt
-- would have no time), and the first table with a row without _dlt_load_id (an
-- Arrow or pandas resource's, which dlt loads without it), and the first table with
-- a row without its cursor (on_cursor_value_missing="include").
SELECT
    (SELECT min(stream) FROM (
        SELECT stream FROM rc_dlt_cursors
        WHERE rc_source_cursor(last_value) < rc_source_cursor(start_value)
        UNION ALL
        SELECT r.stream FROM rc_dlt_rows AS r
        JOIN rc_dlt_cursors AS c ON c.load_id = r.load_id AND c.stream = r.stream
        WHERE rc_source_cursor(r.cursor) > rc_source_cursor(c.last_value)
    )) AS downwards,
    (SELECT min(r.load_id) FROM rc_dlt_rows AS r
     WHERE r.load_id NOT IN (SELECT load_id FROM rc_dlt_loads)
       AND TRY_CAST(r.load_id AS DOUBLE) IS NULL) AS untimed,
    (SELECT min(stream) FROM rc_dlt_rows WHERE load_id IS NULL) AS unloaded,
    (SELECT min(stream) FROM rc_dlt_rows WHERE cursor IS NULL) AS uncursored
