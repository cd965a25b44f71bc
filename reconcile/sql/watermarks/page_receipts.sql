-- Each page's own receipts counted at T: when they came, and the last event (in
-- order) with a receipt on it. Order uses each event's sort position (the lowest of
-- its positions), which differs from the receipt's own only for mutated events.
-- The pages of the slice of partitions in rc_slice (partition_id from $slice_first
-- to $slice_last).
SELECT
    r.scope_id,
    r.partition_id,
    r.page_id,
    count(*) AS n_receipts,
    min(r.recorded_at) AS first_at,
    max(r.recorded_at) AS last_at,
    max({'p': coalesce(m.sort_pos, r.position), 'e': r.event_id}) AS last_event,
    min(coalesce(m.sort_pos, r.position)) AS own_min_pos
FROM receipts AS r
LEFT JOIN rc_mutated AS m
    ON m.pk = rc_pk(r.scope_id, r.partition_id) AND m.event_id = r.event_id
WHERE r.recorded_at <= rc_as_of() AND r.page_id IS NOT NULL
  AND r.partition_id BETWEEN $slice_first AND $slice_last
GROUP BY r.scope_id, r.partition_id, r.page_id
