-- For each event mutated at T, every position it was seen at and when first
-- (§4.5), from its receipts and visible snapshot rows (a row with a null
-- visible_at is seen from the start, whatever the other rows at its position
-- say): its sort position at an instant is the lowest position seen by then, and
-- it is mutated from the instant a second position is seen. With the pages its receipts came on: their blocks
-- move with its sort position (history/mutable_blocks).
WITH mutated AS (
    SELECT p.scope_id, p.partition_id, k.event_id
    FROM rc_mutated AS k
    JOIN rc_partitions AS p USING (pk)
),
own AS MATERIALIZED (
    SELECT r.scope_id, r.partition_id, r.event_id, r.position, r.page_id, r.recorded_at
    FROM receipts AS r
    SEMI JOIN mutated AS m
        ON m.scope_id = r.scope_id AND m.partition_id = r.partition_id AND m.event_id = r.event_id
    WHERE r.recorded_at <= rc_as_of()
),
pages AS (
    SELECT scope_id, partition_id, event_id, list(DISTINCT page_id ORDER BY page_id) AS pages
    FROM own
    WHERE page_id IS NOT NULL
    GROUP BY ALL
),
sightings AS (
    SELECT scope_id, partition_id, event_id, position, min(recorded_at) AS seen_at
    FROM own
    GROUP BY ALL
    UNION ALL
    SELECT s.scope_id, s.partition_id, s.event_id, s.position,
           min(coalesce(s.visible_at, rc_dawn())) AS seen_at
    FROM snapshot AS s
    SEMI JOIN mutated AS m
        ON m.scope_id = s.scope_id AND m.partition_id = s.partition_id AND m.event_id = s.event_id
    WHERE s.visible_at IS NULL OR s.visible_at <= rc_as_of()
    GROUP BY ALL
),
positions AS (
    SELECT scope_id, partition_id, event_id, position, min(seen_at) AS seen_at
    FROM sightings
    GROUP BY ALL
),
listed AS (
    SELECT
        scope_id,
        partition_id,
        event_id,
        list({'position': position, 'seen_at': seen_at} ORDER BY seen_at, position) AS sightings
    FROM positions
    GROUP BY ALL
)
SELECT l.*, coalesce(g.pages, []::VARCHAR[]) AS pages
FROM listed AS l
LEFT JOIN pages AS g USING (scope_id, partition_id, event_id)
