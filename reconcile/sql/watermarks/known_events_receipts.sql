-- The known events at T (§4.2) with their state (§4.3-§4.6) for a log set without
-- snapshot rows: the receipted events. A view, not a table: every column follows
-- from rc_receipt_events, so nothing is copied. The same columns as known_events.
SELECT
    pk,
    event_id,
    false AS in_snapshot,
    sort_pos,
    rc_bit(flags, 32) AS mutated,
    CAST(NULL AS BOOLEAN) AS snap_eligible,
    CAST(NULL AS BOOLEAN) AS snap_stable,
    CAST(NULL AS TIMESTAMP_NS) AS visible_at,
    false AS always_visible,
    CAST(NULL AS TIMESTAMP_NS) AS proven_until,
    first_at,
    durable_at,
    flags,
    rc_bit(flags, 1) AS durable,
    rc_bit(flags, 16) AS replayed,
    rc_event_eligible(false, NULL, flags) AS eligible,
    rc_event_passable(rc_bit(flags, 32), false, NULL, NULL, flags) AS passable,
    rc_event_reason(rc_bit(flags, 32), false, NULL, flags) AS reason
FROM rc_receipt_events
