-- The block of each page while its receipts come, step by step (each step exact), in
-- instant numbers, clipped to membership, for the pages whose steps can hold the
-- frontier (rc_contending_steps); the steps of any other page lie above the frontier
-- wherever they hold. A step that holds between two instants, not at one, covers no
-- instant and is left out. A time becomes an instant number by rc_instant_span (the
-- first instant at or after each end; n, past the scope's last, when none is): a
-- search in the instants' times.
WITH n AS (
    SELECT scope_id, min(idx) AS first, max(idx) + 1 AS n FROM rc_instants GROUP BY scope_id
),
searched AS (
    SELECT s.scope_id, s.partition_id, rc_instant_span(n.first, n.n, s.from_t, s.to_t) AS span,
           n.n, s.cert
    FROM rc_contending_steps AS s
    JOIN n USING (scope_id)
),
receiving AS (
    SELECT scope_id, partition_id, coalesce(span.lo, n) AS lo, coalesce(span.hi, n) AS hi,
           cert AS v, 'receiving' AS part
    FROM searched
)
SELECT s.scope_id, s.partition_id, greatest(s.lo, m.lo) AS lo, least(s.hi, m.hi) AS hi, s.v, s.part
FROM receiving AS s
JOIN rc_member_spans AS m ON m.scope_id = s.scope_id AND m.partition_id = s.partition_id
WHERE greatest(s.lo, m.lo) < least(s.hi, m.hi)
