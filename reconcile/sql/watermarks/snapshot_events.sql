-- The snapshot's events, gathered slice by slice from the event level's aggregate
-- (watermarks/event_agg): one row per snapshot event visible at T (§4.2).
SELECT pk, event_id, min_pos, max_pos, eligible, stable, visible_at, always_visible,
       appeared_pos, appeared_at
FROM rc_event_agg
WHERE in_snapshot
