-- The block of each page being handled, step by step (§4.7): from the page's first
-- receipt to its last (its moving part in rc_page_windows), the block lies right
-- before the last event (in order) received on it so far, so it changes only when
-- a receipt comes. One row per stretch of time it holds one value: exact, where the
-- page's moving part gives only the lowest it can be. Receipts recorded at the same
-- instant count together (a RANGE frame, as in history/moving_receipts: of peers,
-- only the last gives a step that lasts); only the page's own partition's receipts
-- count, as in rc_page_receipts. The last event in order is the highest position
-- (a mutated event's sort position), which is all the block reads of it.
WITH moving AS MATERIALIZED (
    SELECT
        scope_id,
        partition_id,
        page_id,
        discrete,
        greatest(first_own_at, fetched_at) AS from_t,
        least(last_own_at, end_t) AS to_t,
        -- a number per page: the window partitions by one integer, not three strings
        -- (MATERIALIZED: numbered once, for the window and the join back alike)
        row_number() OVER () AS page_no
    FROM rc_page_windows
    WHERE first_own_at IS NOT NULL AND greatest(first_own_at, fetched_at) < least(last_own_at, end_t)
),
arrivals AS (
    -- narrow rows through the window's sort: the page's number, the time, the
    -- position; what the page says is joined back after
    SELECT
        w.page_no,
        r.recorded_at,
        coalesce(m.sort_pos, r.position) AS pos
    FROM receipts AS r
    JOIN moving AS w
        ON w.scope_id = r.scope_id AND w.partition_id = r.partition_id AND w.page_id = r.page_id
    LEFT JOIN rc_mutated AS m
        ON m.pk = rc_pk(r.scope_id, r.partition_id) AND m.event_id = r.event_id
    WHERE r.recorded_at <= rc_as_of()
),
running AS (
    SELECT
        *,
        max(pos) OVER (
            PARTITION BY page_no ORDER BY recorded_at
            RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS last_pos,
        lead(recorded_at) OVER (
            PARTITION BY page_no ORDER BY recorded_at
        ) AS next_at
    FROM arrivals
)
SELECT
    w.scope_id,
    w.partition_id,
    w.page_id,
    greatest(r.recorded_at, w.from_t) AS from_t,
    least(coalesce(r.next_at, rc_dusk()), w.to_t) AS to_t,
    rc_before(r.last_pos, w.discrete) AS cert
FROM running AS r
JOIN moving AS w USING (page_no)
WHERE greatest(r.recorded_at, w.from_t) < least(coalesce(r.next_at, rc_dusk()), w.to_t)
