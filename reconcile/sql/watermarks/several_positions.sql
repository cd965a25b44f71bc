-- The snapshot events of the slice at several positions (rc_snapshot_slice): each
-- appeared at each of its positions on its own (watermarks/moved_events). Few or
-- none: where there is none, the snapshot is not read again.
SELECT pk, event_id
FROM rc_snapshot_slice
WHERE min_pos <> max_pos
