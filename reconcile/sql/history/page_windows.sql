-- Each page of rc_page_status as a blocker over time (§4.7): from its fetch until
-- enough known events lie in its range (the event_count-th event to become known;
-- never, when too few are known at T). Inside that window it blocks before its first
-- position until a receipt on it comes, then right after the last event (in order)
-- with a receipt on it.
WITH windows AS (
    SELECT
        ps.scope_id,
        ps.partition_id,
        ps.page_id,
        p.discrete,
        ps.fetched_at,
        ps.complete_at,
        ps.min_position,
        ps.first_at AS first_own_at,
        ps.last_at AS last_own_at,
        ps.own_min_pos,
        ps.block.p AS tail_pos
    FROM rc_page_status AS ps
    JOIN rc_partitions AS p USING (scope_id, partition_id)
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
