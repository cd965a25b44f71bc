-- Each page's stretch of time while its receipts come (its moving part, the span of
-- its steps in rc_moving_steps), in instant numbers, clipped to membership, with the
-- least and the greatest value its block takes there: its steps lie between the
-- block before its lowest received event and the block before its highest (§4.7:
-- the block lies right before the last event, in order, received so far). One row
-- per page and span of membership it covers an instant in. A time becomes an instant
-- number by rc_instant_span (the first instant at or after each end; n, past the
-- scope's last, when none is): a search in the instants' times.
WITH n AS (
    SELECT scope_id, min(idx) AS first, max(idx) + 1 AS n FROM rc_instants GROUP BY scope_id
),
moving AS (
    SELECT scope_id, partition_id, page_id,
           greatest(first_own_at, fetched_at) AS from_t,
           least(last_own_at, end_t) AS to_t,
           rc_before(own_min_pos, discrete) AS low,
           rc_before(tail_pos, discrete) AS high
    FROM rc_page_windows
    WHERE first_own_at IS NOT NULL AND greatest(first_own_at, fetched_at) < least(last_own_at, end_t)
),
searched AS (
    SELECT w.scope_id, w.partition_id, w.page_id,
           rc_instant_span(n.first, n.n, w.from_t, w.to_t) AS span, n.n, w.low, w.high
    FROM moving AS w
    JOIN n USING (scope_id)
),
numbered AS (
    SELECT scope_id, partition_id, page_id,
           coalesce(span.lo, n) AS lo, coalesce(span.hi, n) AS hi, low, high
    FROM searched
)
SELECT w.scope_id, w.partition_id, w.page_id, greatest(w.lo, m.lo) AS lo, least(w.hi, m.hi) AS hi,
       w.low, w.high
FROM numbered AS w
JOIN rc_member_spans AS m ON m.scope_id = w.scope_id AND m.partition_id = w.partition_id
WHERE greatest(w.lo, m.lo) < least(w.hi, m.hi)
