-- The known events of the slice that are not settled by their first receipt: in the
-- snapshot, mutated, or not durable from their first receipt (failed, ineligible,
-- replayed late, or without any durable outcome). Every step after the watermarks
-- that looks at single events needs only these: the others were durable, and so
-- passable, from the instant they became known, and are counted in
-- rc_event_summary, rc_page_status and rc_committed. Left out too: the events whose
-- whole part in the history is one wait (rc_event_waits has it), and the snapshot
-- events that never block (rc_never_blocks): durable or passable at T, neither can
-- be skipped, mutated or block; and the events settled by their receipts as
-- ineligible (rc_settled_ineligible): never skipped, as ineligible or as durable.
SELECT *
FROM rc_known_events
WHERE (in_snapshot OR mutated OR durable_at IS DISTINCT FROM first_at)
  AND NOT coalesce(rc_simple_wait(mutated, in_snapshot, snap_eligible, always_visible, proven_until, flags,
                                  durable_at), false)
  AND NOT coalesce(rc_never_blocks(mutated, in_snapshot, snap_eligible, snap_stable,
                                   always_visible, visible_at, first_at), false)
  AND NOT coalesce(rc_settled_ineligible(mutated, in_snapshot, flags), false)
