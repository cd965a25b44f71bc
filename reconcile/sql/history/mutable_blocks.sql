-- The block of each mutable page (rc_page_windows: a receipt on it is of an event
-- mutated at T) over time, from its first receipt on (§4.7): right after the last
-- event, in order, received on it so far, where each event sorts at that instant
-- (§4.5: the lowest position seen by then). An event never mutated keeps its place,
-- so those give a running maximum; a mutated event's place falls at each sighting
-- of a lower position, so it gives pieces of time [from_t, to_t), a sort position
-- each, looked up at every instant the block can change. One row per page and such
-- instant. Mutated events are few, and so are these pages.
WITH pages AS (
    SELECT scope_id, partition_id, page_id FROM rc_page_windows WHERE mutable
),
own AS MATERIALIZED (
    -- only the page's own partition's receipts count, as in rc_page_receipts
    SELECT r.scope_id, r.partition_id, r.page_id, r.event_id, r.position, r.recorded_at,
           m.event_id IS NOT NULL AS mutated
    FROM receipts AS r
    SEMI JOIN pages AS g
        ON g.scope_id = r.scope_id AND g.partition_id = r.partition_id AND g.page_id = r.page_id
    LEFT JOIN rc_mutated AS m
        ON m.pk = rc_pk(r.scope_id, r.partition_id) AND m.event_id = r.event_id
    WHERE r.recorded_at <= rc_as_of()
),
kept AS (
    -- events never mutated: the last of them so far, at each instant one comes
    SELECT scope_id, partition_id, page_id, changed_at,
           max(last_event) OVER (
               PARTITION BY scope_id, partition_id, page_id ORDER BY changed_at
               ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
           ) AS last_event
    FROM (
        SELECT scope_id, partition_id, page_id, recorded_at AS changed_at,
               max({'p': position, 'e': event_id}) AS last_event
        FROM own
        WHERE NOT mutated
        GROUP BY ALL
    )
),
firsts AS (
    -- each mutated event's first receipt on the page: from then on it counts
    SELECT scope_id, partition_id, page_id, event_id, min(recorded_at) AS first_at
    FROM own
    WHERE mutated
    GROUP BY ALL
),
places AS (
    -- each mutated event's sort position from each sighting on, until the next
    SELECT scope_id, partition_id, event_id, seen_at,
           min(position) OVER w AS sort_pos,
           coalesce(lead(seen_at) OVER w, rc_dusk()) AS next_seen
    FROM (
        SELECT m.scope_id, m.partition_id, m.event_id, s.s['position'] AS position, s.s.seen_at
        FROM rc_mutations AS m, unnest(m.sightings) AS s(s)
    )
    WINDOW w AS (
        PARTITION BY scope_id, partition_id, event_id ORDER BY seen_at, position
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    )
),
pieces AS (
    SELECT f.scope_id, f.partition_id, f.page_id,
           greatest(p.seen_at, f.first_at) AS from_t, p.next_seen AS to_t,
           {'p': p.sort_pos, 'e': f.event_id} AS last_event
    FROM firsts AS f
    JOIN places AS p USING (scope_id, partition_id, event_id)
    WHERE greatest(p.seen_at, f.first_at) < p.next_seen
),
instants AS (
    SELECT scope_id, partition_id, page_id, changed_at FROM kept
    UNION
    SELECT scope_id, partition_id, page_id, from_t FROM pieces
),
moved AS (
    SELECT i.scope_id, i.partition_id, i.page_id, i.changed_at, max(p.last_event) AS last_event
    FROM instants AS i
    JOIN pieces AS p
        ON p.scope_id = i.scope_id AND p.partition_id = i.partition_id AND p.page_id = i.page_id
       AND p.from_t <= i.changed_at AND i.changed_at < p.to_t
    GROUP BY ALL
)
SELECT i.scope_id, i.partition_id, i.page_id, i.changed_at,
       greatest(k.last_event, v.last_event) AS last_event  -- (greatest skips a null)
FROM instants AS i
ASOF LEFT JOIN kept AS k
    ON k.scope_id = i.scope_id AND k.partition_id = i.partition_id AND k.page_id = i.page_id
   AND k.changed_at <= i.changed_at
LEFT JOIN moved AS v
    ON v.scope_id = i.scope_id AND v.partition_id = i.partition_id AND v.page_id = i.page_id
   AND v.changed_at = i.changed_at
