-- The snapshot's events, gathered slice by slice (watermarks/snapshot_slice): one
-- row per snapshot event visible at T.
SELECT * FROM rc_snapshot_slice
