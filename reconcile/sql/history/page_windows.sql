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
    -- a page whose range holds, at T, an event mutated at T: the event lies in the
    -- range only from its first sighting at or under max_position (its sort position
    -- falls, never rises, and at T it is at or above min_position), so the page is
    -- complete no earlier than that (rc_page_status counts it from when it became
    -- known). Never earlier than the contract's instant: at most later, where an
    -- event's place fell out of the range by T (it is not counted there at all).
    SELECT ps.scope_id, ps.partition_id, ps.page_id,
           max(list_min([s.seen_at FOR s IN m.sightings IF s.position <= ps.max_position]))
               AS entered_at
    FROM rc_page_status AS ps
    JOIN rc_mutations AS m USING (scope_id, partition_id)
    WHERE list_min([s.position FOR s IN m.sightings]) BETWEEN ps.min_position AND ps.max_position
    GROUP BY ALL
),
status AS (
    SELECT ps.* EXCLUDE (complete_at),
           CASE WHEN ps.complete_at IS NOT NULL THEN greatest(ps.complete_at, en.entered_at) END
               AS complete_at
    FROM rc_page_status AS ps
    LEFT JOIN entered AS en USING (scope_id, partition_id, page_id)
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
