-- The receipts of pages some point lies inside of, with the position of the last
-- event (in order) received on the page so far at each: what the page's block is at
-- that time (for a mutable page, rc_mutable_blocks' rows: its block moves between
-- receipts too). The block reads the last event's position alone (the event's name
-- is page_status's, for the state at T), so no event_id is read. Receipts recorded
-- at the same instant are peers (a RANGE frame): each row of that instant holds the
-- last position over all of them, whichever the lookup finds.
-- Only the page's own partition's receipts count, as in rc_page_receipts; the
-- pages' partitions are joined apart too: when they are few, the scan of receipts
-- skips the row groups of every other partition.
-- A template: rc_point_pages is bound per set of points (evaluate_points in
-- reconcile/engine/steps/history.py).
WITH wanted AS (
    SELECT DISTINCT scope_id, partition_id, page_id FROM rc_point_pages WHERE moving
),
mutable AS (
    SELECT w.*
    FROM wanted AS w
    SEMI JOIN rc_mutable_blocks AS b
        ON b.scope_id = w.scope_id AND b.partition_id = w.partition_id AND b.page_id = w.page_id
),
wanted_partitions AS (
    SELECT DISTINCT scope_id, partition_id FROM wanted
)
SELECT
    r.scope_id,
    r.page_id,
    r.recorded_at,
    max(r.position) OVER (
        PARTITION BY r.scope_id, r.partition_id, r.page_id ORDER BY r.recorded_at
        RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    ) AS last_pos
FROM receipts AS r
SEMI JOIN wanted AS w
    ON w.scope_id = r.scope_id AND w.partition_id = r.partition_id AND w.page_id = r.page_id
SEMI JOIN wanted_partitions AS wp
    ON wp.scope_id = r.scope_id AND wp.partition_id = r.partition_id
ANTI JOIN mutable AS u
    ON u.scope_id = r.scope_id AND u.partition_id = r.partition_id AND u.page_id = r.page_id
WHERE r.recorded_at <= rc_as_of()
UNION ALL
-- a mutable page's (a receipt on it is of an event mutated at T): its last event at
-- each instant it can change, each event where it sorts then
SELECT b.scope_id, b.page_id, b.changed_at, b.last_event.p
FROM rc_mutable_blocks AS b
SEMI JOIN mutable AS u
    ON u.scope_id = b.scope_id AND u.partition_id = b.partition_id AND u.page_id = b.page_id
