-- The proven basis over the instants, in instant numbers, clipped to membership,
-- but for the receiving blocks (frontier/proven_segments adds those it needs):
-- intervals whose value is exact (each partition's provider certificate, and the
-- blocks: event blockers, the snapshot prefix, pages before their first receipt
-- and after their last), with a null value where a partition has no provider
-- certificate (so no proven one). A step that holds between two instants, not at
-- one, covers no instant and is left out. A time becomes an instant number by
-- rc_instant_no (the first instant at or after it; n, past the scope's last, when
-- none is): a search in the instants' times; an interval's two ends by
-- rc_instant_span, in one call.
WITH n AS (
    SELECT scope_id, min(idx) AS first, max(idx) + 1 AS n FROM rc_instants GROUP BY scope_id
),
provider_idx AS (
    SELECT p.scope_id, p.partition_id,
           coalesce(rc_instant_no(n.first, n.n, p.from_t), n.n) AS lo, p.cert
    FROM rc_provider_steps AS p
    JOIN n USING (scope_id)
),
provider_segments AS (
    SELECT scope_id, partition_id, lo,
           coalesce(lead(lo) OVER (PARTITION BY scope_id, partition_id ORDER BY lo, cert),
                    (SELECT n FROM n WHERE n.scope_id = provider_idx.scope_id)) AS hi,
           cert AS v, 'provider' AS part
    FROM provider_idx
    UNION ALL
    SELECT p.scope_id, p.partition_id, n.first,
           coalesce((SELECT min(lo) FROM provider_idx AS q
                     WHERE q.scope_id = p.scope_id AND q.partition_id = p.partition_id), n.n),
           NULL, 'provider'
    FROM rc_partitions AS p
    JOIN n USING (scope_id)
),
blockers AS (
    SELECT scope_id, partition_id, from_t, coalesce(to_t, rc_dusk()) AS to_t, cert, 'event' AS part
    FROM rc_event_segments
    UNION ALL
    SELECT scope_id, partition_id,
           coalesce(lag(until_t) OVER (PARTITION BY scope_id, partition_id ORDER BY until_t), rc_dawn()),
           until_t, cert, 'prefix'
    FROM rc_records
    UNION ALL
    -- a page window: before its first receipt, and after its last
    SELECT scope_id, partition_id, fetched_at,
           least(greatest(coalesce(first_own_at, end_t), fetched_at), end_t),
           rc_before(min_position, discrete), 'page'
    FROM rc_page_windows
    UNION ALL
    SELECT scope_id, partition_id, greatest(last_own_at, fetched_at), end_t,
           rc_before(tail_pos, discrete), 'page'
    FROM rc_page_windows
    WHERE last_own_at IS NOT NULL AND greatest(last_own_at, fetched_at) < end_t
),
searched AS (
    SELECT b.scope_id, b.partition_id, rc_instant_span(n.first, n.n, b.from_t, b.to_t) AS span,
           n.n, b.cert, b.part
    FROM blockers AS b
    JOIN n USING (scope_id)
),
blocker_idx AS (
    SELECT scope_id, partition_id, coalesce(span.lo, n) AS lo, coalesce(span.hi, n) AS hi,
           cert AS v, part
    FROM searched
),
segments AS (
    SELECT * FROM provider_segments
    UNION ALL
    SELECT * FROM blocker_idx
)
SELECT s.scope_id, s.partition_id, greatest(s.lo, m.lo) AS lo, least(s.hi, m.hi) AS hi, s.v, s.part
FROM segments AS s
JOIN rc_member_spans AS m ON m.scope_id = s.scope_id AND m.partition_id = s.partition_id
WHERE greatest(s.lo, m.lo) < least(s.hi, m.hi)
