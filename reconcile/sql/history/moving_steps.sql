-- The block of each page being handled, step by step (§4.7): from the page's first
-- receipt to its last (its moving part in rc_page_windows), the block lies right
-- before the last event (in order) received on it so far, so it changes only when
-- a receipt comes. One row per stretch of time it holds one value: exact, where the
-- page's moving part gives only the lowest it can be. Receipts recorded at the same
-- instant count together (as in history/moving_receipts); only the page's own
-- partition's receipts count, as in rc_page_receipts.
WITH moving AS (
    SELECT
        scope_id,
        partition_id,
        page_id,
        discrete,
        greatest(first_own_at, fetched_at) AS from_t,
        least(last_own_at, end_t) AS to_t
    FROM rc_page_windows
    WHERE first_own_at IS NOT NULL AND greatest(first_own_at, fetched_at) < least(last_own_at, end_t)
),
arrivals AS (
    SELECT
        r.scope_id,
        r.partition_id,
        r.page_id,
        r.recorded_at,
        max({'p': coalesce(m.sort_pos, r.position), 'e': r.event_id}) AS last_here
    FROM receipts AS r
    SEMI JOIN moving AS w
        ON w.scope_id = r.scope_id AND w.partition_id = r.partition_id AND w.page_id = r.page_id
    LEFT JOIN rc_mutated AS m
        ON m.pk = rc_pk(r.scope_id, r.partition_id) AND m.event_id = r.event_id
    WHERE r.recorded_at <= rc_as_of()
    GROUP BY r.scope_id, r.partition_id, r.page_id, r.recorded_at
),
running AS (
    SELECT
        scope_id,
        partition_id,
        page_id,
        recorded_at,
        max(last_here) OVER w AS last_event,
        lead(recorded_at) OVER w AS next_at
    FROM arrivals
    WINDOW w AS (
        PARTITION BY scope_id, partition_id, page_id ORDER BY recorded_at
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    )
)
SELECT
    w.scope_id,
    w.partition_id,
    greatest(r.recorded_at, w.from_t) AS from_t,
    least(coalesce(r.next_at, rc_dusk()), w.to_t) AS to_t,
    rc_before(r.last_event.p, w.discrete) AS cert
FROM running AS r
JOIN moving AS w USING (scope_id, partition_id, page_id)
WHERE greatest(r.recorded_at, w.from_t) < least(coalesce(r.next_at, rc_dusk()), w.to_t)
