-- The block of each page being handled, step by step (§4.7): from the page's first
-- receipt to its last (its moving part in rc_page_windows), the block lies right
-- before the last event (in order) received on it so far, so it changes only when
-- a receipt comes. One row per stretch of time it holds one value: exact, where the
-- page's moving part gives only the lowest it can be. Receipts recorded at the same
-- instant count together (a RANGE frame, as in history/moving_receipts: of peers,
-- only the last gives a step that lasts); only the page's own partition's receipts
-- count, as in rc_page_receipts. The last event in order is the highest position,
-- which is all the block reads of it. A mutable page's block (a receipt on it is
-- of an event mutated at T, so a place can fall) is rc_mutable_blocks' at each
-- instant it can change.
WITH moving AS MATERIALIZED (
    SELECT
        scope_id,
        partition_id,
        page_id,
        discrete,
        mutable,
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
    -- (no receipt on a page that is not mutable is of a mutated event)
    SELECT
        w.page_no,
        r.recorded_at,
        r.position AS pos
    FROM receipts AS r
    JOIN moving AS w
        ON w.scope_id = r.scope_id AND w.partition_id = r.partition_id AND w.page_id = r.page_id
    WHERE r.recorded_at <= rc_as_of() AND NOT w.mutable
),
running AS (
    SELECT
        page_no,
        recorded_at,
        max(pos) OVER (
            PARTITION BY page_no ORDER BY recorded_at
            RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS last_pos,
        lead(recorded_at) OVER (
            PARTITION BY page_no ORDER BY recorded_at
        ) AS next_at
    FROM arrivals
    UNION ALL
    SELECT
        w.page_no,
        b.changed_at,
        b.last_event.p,
        lead(b.changed_at) OVER (PARTITION BY w.page_no ORDER BY b.changed_at)
    FROM rc_mutable_blocks AS b
    JOIN moving AS w
        ON w.scope_id = b.scope_id AND w.partition_id = b.partition_id AND w.page_id = b.page_id
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
