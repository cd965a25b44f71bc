-- Who held the frontier of one basis when: each stay of a partition among the
-- limiting partitions of the scalar frontier at one value, over every §4.15 evaluation
-- instant (a row of frontier_history or not: a change of holder at an unchanged value
-- has no row), as stalled_partition measures it. at: the stay's first instant; last:
-- its last; until: the next instant (it no longer held there), null where last is the
-- scope's last instant; epoch: the epoch in force at `at`.
WITH hist AS (
    SELECT scope_id, idx, t, epoch, frontier,
           row_number() OVER (PARTITION BY scope_id ORDER BY idx) AS k
    FROM rc_frontier_at
    WHERE basis = $basis AND history
),
nexts AS (
    SELECT *, lead(t) OVER (PARTITION BY scope_id ORDER BY k) AS next_t FROM hist
),
runs AS (
    -- each run of consecutive instants at which the frontier kept one value
    SELECT scope_id, frontier, min(idx) AS first, max(idx) AS last
    FROM (
        SELECT *, k - row_number() OVER (PARTITION BY scope_id, frontier ORDER BY k) AS run
        FROM hist
        WHERE frontier IS NOT NULL
    )
    GROUP BY scope_id, frontier, run
),
held AS (
    -- the stretches [lo, hi) where a partition's certificate holds the basis' frontier
    -- when its value is the frontier's
    SELECT scope_id, partition_id, lo, hi, v FROM rc_claimed_holders WHERE $basis = 'claimed'
    UNION ALL
    SELECT scope_id, partition_id, lo, hi, v FROM rc_proven_holders WHERE $basis = 'proven'
),
pieces AS (
    SELECT s.scope_id, s.partition_id, s.v,
           greatest(s.lo, r.first) AS lo, least(s.hi, r.last + 1) AS hi
    FROM held AS s
    JOIN runs AS r
        ON r.scope_id = s.scope_id AND r.frontier = s.v AND s.lo <= r.last AND r.first < s.hi
),
located AS (
    -- the piece's first instant (at or after lo) and last (before hi), by number; a
    -- stretch between two instants holds none (a > b)
    SELECT p.scope_id, p.partition_id, p.v, a.k AS a, a.t AS since, a.epoch,
           b.k AS b, b.t AS until_last, b.next_t
    FROM pieces AS p
    ASOF JOIN nexts AS a ON a.scope_id = p.scope_id AND p.lo <= a.idx
    ASOF JOIN nexts AS b ON b.scope_id = p.scope_id AND p.hi > b.idx
),
islands AS (
    -- a stay: the pieces of one partition and value at consecutive or shared instants
    -- (a claim's stretches of one value back to back; the proven parts of one
    -- partition, which may overlap)
    SELECT *, sum(fresh) OVER (PARTITION BY scope_id, partition_id, v ORDER BY a, b) AS island
    FROM (
        SELECT *,
               CASE WHEN a <= max(b) OVER (
                        PARTITION BY scope_id, partition_id, v ORDER BY a, b
                        ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) + 1
                    THEN 0 ELSE 1 END AS fresh
        FROM located
        WHERE a <= b
    )
)
SELECT scope_id, partition_id, min(since) AS at, max(until_last) AS last,
       arg_max_null(next_t, b) AS until, arg_min(epoch, a) AS epoch, v.v AS frontier,
       v.i = 1 AS frontier_inclusive
FROM islands
GROUP BY scope_id, partition_id, v, island
ORDER BY scope_id, "at", partition_id
