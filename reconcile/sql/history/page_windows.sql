-- Each page of rc_page_status as a blocker over time (§4.7): from its fetch until
-- enough known events lie in its range (the event_count-th event to become known;
-- never, when too few are known at T). Inside that window it blocks before its first
-- position until a receipt on it comes, then right after the last event (in order)
-- with a receipt on it.
WITH exact AS (
    -- more events in range than its count: the count-th of them to become known
    SELECT
        ps.scope_id, ps.partition_id, ps.page_id,
        list_sort(list(e.first_at))[any_value(ps.event_count)] AS complete_at
    FROM rc_page_status AS ps
    JOIN rc_known_events AS e
        ON e.pk = ps.pk AND e.sort_pos BETWEEN ps.min_position AND ps.max_position
    WHERE ps.in_range > ps.event_count
    GROUP BY ps.scope_id, ps.partition_id, ps.page_id
),
windows AS (
    SELECT
        ps.scope_id,
        ps.partition_id,
        ps.page_id,
        p.discrete,
        ps.fetched_at,
        CASE
            WHEN ps.in_range < ps.event_count THEN NULL
            WHEN ps.in_range = ps.event_count THEN ps.last_known
            ELSE x.complete_at
        END AS complete_at,
        ps.min_position,
        ps.first_at AS first_own_at,
        ps.last_at AS last_own_at,
        ps.own_min_pos,
        ps.block.p AS tail_pos
    FROM rc_page_status AS ps
    JOIN rc_partitions AS p USING (scope_id, partition_id)
    LEFT JOIN exact AS x USING (scope_id, partition_id, page_id)
)
SELECT
    *,
    coalesce(complete_at, rc_dusk()) AS end_t,
    -- still open when the partition's next page is fetched: looked up by range
    coalesce(complete_at, rc_dusk()) > coalesce(
        lead(fetched_at) OVER (PARTITION BY scope_id, partition_id ORDER BY fetched_at, page_id),
        rc_dusk()
    ) AS outlives_next
FROM windows
WHERE complete_at IS NULL OR complete_at > fetched_at
