-- The known events at T (§4.2) with their state (§4.3-§4.6), for a log set with
-- snapshot rows: the snapshot's visible events and any receipted event it lacks;
-- with receipts evidence, the receipted events. An event seen at two positions is
-- mutated: never passable, sorted at the lowest. The same columns as
-- known_events_receipts, which serves log sets without a snapshot. For the slice of
-- partitions in rc_slice (rc_snapshot_slice and rc_receipt_events hold that slice's
-- events).
WITH joined AS (
    SELECT
        coalesce(s.pk, r.pk) AS pk,
        coalesce(s.event_id, r.event_id) AS event_id,
        s.event_id IS NOT NULL AS in_snapshot,
        least(s.min_pos, r.sort_pos) AS sort_pos,
        coalesce(s.min_pos <> s.max_pos, false)
            OR rc_bit(r.flags, 32)
            OR coalesce(s.min_pos <> r.sort_pos, false) AS mutated,
        s.eligible AS snap_eligible,
        s.stable AS snap_stable,
        s.visible_at,
        coalesce(s.always_visible, false) AS always_visible,
        s.proven_until,
        r.first_at,
        r.durable_at,
        coalesce(r.flags, 0) AS flags
    FROM rc_snapshot_slice AS s
    FULL OUTER JOIN rc_receipt_events AS r ON r.pk = s.pk AND r.event_id = s.event_id
)
SELECT
    pk,
    event_id,
    in_snapshot,
    sort_pos,
    mutated,
    snap_eligible,
    snap_stable,
    visible_at,
    always_visible,
    proven_until,
    first_at,
    durable_at,
    flags,
    rc_bit(flags, 1) AS durable,
    rc_bit(flags, 16) AS replayed,
    rc_event_eligible(in_snapshot, snap_eligible, flags) AS eligible,
    rc_event_passable(mutated, in_snapshot, snap_eligible, snap_stable, flags) AS passable,
    rc_event_reason(mutated, in_snapshot, snap_eligible, flags) AS reason
FROM joined
