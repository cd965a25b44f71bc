-- The receipts of pages some point lies inside of, with the last event (in order)
-- received on the page so far at each: what the page's block is at that time.
WITH wanted AS (
    SELECT DISTINCT scope_id, page_id FROM rc_point_pages WHERE moving
),
mutated AS (
    SELECT pk, event_id, sort_pos FROM rc_known_events WHERE mutated
)
SELECT
    r.scope_id,
    r.page_id,
    r.recorded_at,
    max({'p': coalesce(m.sort_pos, r.position), 'e': r.event_id}) OVER (
        PARTITION BY r.scope_id, r.page_id ORDER BY r.recorded_at
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    ) AS last_event
FROM receipts AS r
SEMI JOIN wanted AS w ON w.scope_id = r.scope_id AND w.page_id = r.page_id
LEFT JOIN mutated AS m
    ON m.pk = rc_pk(r.scope_id, r.partition_id) AND m.event_id = r.event_id
WHERE r.recorded_at <= rc_as_of()
