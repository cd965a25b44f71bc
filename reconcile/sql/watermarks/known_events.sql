-- The known events at T (§4.2) with their state (§4.3-§4.6), for a log set with
-- snapshot rows: the snapshot's visible events and any receipted event it lacks;
-- with receipts evidence, the receipted events. An event seen at two positions is
-- mutated: never passable, sorted at the lowest. The same columns as
-- known_events_receipts, which serves log sets without a snapshot. For the slice of
-- partitions in rc_slice (rc_event_agg holds that slice's events).
WITH joined AS (
    SELECT
        pk,
        event_id,
        in_snapshot,
        least(min_pos, receipt_min_pos) AS sort_pos,
        coalesce(min_pos <> max_pos, false)
            OR rc_bit(flags, 32)
            OR coalesce(min_pos <> receipt_min_pos, false) AS mutated,
        eligible AS snap_eligible,
        stable AS snap_stable,
        visible_at,
        coalesce(always_visible, false) AS always_visible,
        first_at,
        durable_at,
        flags
    FROM rc_event_agg
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
    first_at,
    durable_at,
    flags,
    rc_bit(flags, 1) AS durable,
    rc_bit(flags, 16) AS replayed,
    rc_event_eligible(in_snapshot, snap_eligible, flags) AS eligible,
    rc_event_passable(mutated, in_snapshot, snap_eligible, snap_stable, flags) AS passable,
    rc_event_reason(mutated, in_snapshot, snap_eligible, flags) AS reason
FROM joined
