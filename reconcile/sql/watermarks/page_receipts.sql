-- Each page's own receipts counted at T: when they came, and the last event (in
-- order) with a receipt on it: its position (last_pos) and, where the slice holds a
-- mutated event, its event_id (last_event_id; NULL otherwise, for page_status to
-- name where it must). Order uses each event's sort position (the lowest of its
-- positions), which differs from the receipt's own only for mutated events.
-- The pages of the slice of partitions in rc_slice (partition_id from $slice_first
-- to $slice_last).
--
-- Where no event of the slice is mutated, rc_page_pass (one pass over every receipt,
-- each at its own position) is already the answer. Where one is, the slice's
-- receipts are counted again, each mutated event at its sort position. Only one of
-- the two branches yields rows; DuckDB skips the other's aggregate (it may still
-- read receipts for its join: bench/EVENT_LEVEL.md has what the slices cost at 100 M).
WITH slice_mutated AS (
    SELECT m.event_id
    FROM rc_mutated AS m
    SEMI JOIN rc_slice AS s ON s.pk = m.pk
)
SELECT
    scope_id, partition_id, page_id, n_receipts, first_at, last_at, last_pos,
    CAST(NULL AS VARCHAR) AS last_event_id, own_min_pos
FROM rc_page_pass
WHERE partition_id BETWEEN $slice_first AND $slice_last
  AND NOT EXISTS (SELECT 1 FROM slice_mutated)
UNION ALL
SELECT
    scope_id, partition_id, page_id, n_receipts, first_at, last_at, last_event.p AS last_pos,
    last_event.e AS last_event_id, own_min_pos
FROM (
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
      AND EXISTS (SELECT 1 FROM slice_mutated)
    GROUP BY r.scope_id, r.partition_id, r.page_id
) AS counted
