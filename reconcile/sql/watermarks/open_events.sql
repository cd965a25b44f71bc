-- The known events of the slice that are not settled by their first receipt: in the
-- snapshot, mutated, or not durable from their first receipt (failed, ineligible,
-- replayed late, or without any durable outcome). Every step after the watermarks
-- that looks at single events needs only these: the others were durable, and so
-- passable, from the instant they became known, and are counted in
-- rc_event_summary, rc_page_status and rc_committed.
SELECT *
FROM rc_known_events
WHERE in_snapshot OR mutated OR durable_at IS DISTINCT FROM first_at
