-- Each page of rc_page_status as a blocker over time (§4.7): from its fetch until
-- enough known events lie in its range (the event_count-th event to become known;
-- never, when too few are known at T). Inside that window it blocks before its first
-- position until a receipt on it comes, then right after the last event (in order)
-- with a receipt on it, where that event sorts at the time (§4.5): a page holding
-- a receipt of an event mutated at T is mutable, its block moving with that event's
-- sort position until the window ends (history/mutable_blocks), so its moving part
-- runs to end_t, and its tail_pos is a bound from above on its block: the highest
-- position any sighting of those events had, or its block at T.
WITH entered AS (
    -- each event mutated at T and each page of its partition whose range it came to
    -- lie in: its place (the lowest position seen so far) falls, never rises, so it
    -- lies there from its first sighting at or under max_position, if its place was
    -- then still at or above min_position. rc_page_status counts it where it sorts
    -- at T, from when it became known.
    SELECT scope_id, partition_id, page_id, min_position, max_position, event_count, t
    FROM (
        SELECT ps.scope_id, ps.partition_id, ps.page_id, ps.min_position, ps.max_position,
               ps.event_count, m.sightings,
               list_min([s.seen_at FOR s IN m.sightings IF s.position <= ps.max_position]) AS t
        FROM rc_page_status AS ps
        JOIN rc_mutations AS m USING (scope_id, partition_id)
    )
    WHERE list_min([s.position FOR s IN sightings IF s.seen_at <= t]) >= min_position
),
affected AS (
    -- the pages such an event came to lie in: counted again below. Where it later
    -- falls below min_position the page is incomplete again by the contract, but
    -- never blocks lower than that event, which is mutated from that sighting on
    -- (never passable) and sorts below the page's range: the page is left complete.
    SELECT DISTINCT scope_id, partition_id, page_id, min_position, max_position, event_count
    FROM entered
),
kept AS (
    -- the never-mutated events of their partitions (receipts evidence: the known
    -- events are the receipts'), each at its one position, known from its first receipt
    SELECT r.scope_id, r.partition_id, r.event_id, any_value(r.position) AS position,
           min(r.recorded_at) AS known_at
    FROM receipts AS r
    SEMI JOIN affected AS a ON a.scope_id = r.scope_id AND a.partition_id = r.partition_id
    ANTI JOIN rc_mutations AS m
        ON m.scope_id = r.scope_id AND m.partition_id = r.partition_id AND m.event_id = r.event_id
    WHERE r.recorded_at <= rc_as_of()
    GROUP BY ALL
),
counted AS (
    -- when each event in such a page's range came to lie there
    SELECT a.scope_id, a.partition_id, a.page_id, k.known_at AS t
    FROM affected AS a
    JOIN kept AS k
        ON k.scope_id = a.scope_id AND k.partition_id = a.partition_id
       AND k.position BETWEEN a.min_position AND a.max_position
    UNION ALL
    SELECT scope_id, partition_id, page_id, t
    FROM entered
),
recounted AS (
    -- complete when the event_count-th of them came to lie there (the contract's
    -- instant, or, where an event mutated at T fell below the range, any instant
    -- before that fall)
    SELECT c.scope_id, c.partition_id, c.page_id,
           list_sort(list(c.t))[any_value(a.event_count)] AS complete_at
    FROM counted AS c
    JOIN affected AS a USING (scope_id, partition_id, page_id)
    GROUP BY c.scope_id, c.partition_id, c.page_id
),
status AS (
    SELECT ps.* EXCLUDE (complete_at),
           CASE WHEN rc.page_id IS NULL THEN ps.complete_at ELSE rc.complete_at END AS complete_at
    FROM rc_page_status AS ps
    LEFT JOIN recounted AS rc USING (scope_id, partition_id, page_id)
),
mutable AS (
    SELECT m.scope_id, m.partition_id, g.page_id,
           max(list_max([s.position FOR s IN m.sightings])) AS top_pos
    FROM rc_mutations AS m, unnest(m.pages) AS g(page_id)
    GROUP BY ALL
),
windows AS (
    SELECT
        ps.scope_id,
        ps.partition_id,
        ps.page_id,
        p.discrete,
        ps.fetched_at,
        ps.complete_at,
        ps.min_position,
        ps.first_at AS first_own_at,
        CASE WHEN u.page_id IS NULL THEN ps.last_at ELSE coalesce(ps.complete_at, rc_dusk()) END
            AS last_own_at,
        ps.own_min_pos,
        CASE WHEN u.page_id IS NULL THEN ps.block.p ELSE greatest(ps.block.p, u.top_pos) END
            AS tail_pos,
        coalesce(ps.complete_at, rc_dusk()) AS end_t,
        u.page_id IS NOT NULL AS mutable
    FROM status AS ps
    JOIN rc_partitions AS p USING (scope_id, partition_id)
    LEFT JOIN mutable AS u USING (scope_id, partition_id, page_id)
)
SELECT
    * EXCLUDE (end_t, mutable),
    end_t,
    -- still open when the partition's next page is fetched: looked up by range
    coalesce(complete_at, rc_dusk()) > coalesce(
        lead(fetched_at) OVER (PARTITION BY scope_id, partition_id ORDER BY fetched_at, page_id),
        rc_dusk()
    ) AS outlives_next,
    mutable
FROM windows
WHERE complete_at IS NULL OR complete_at > fetched_at
