-- stalled_partition: a partition stayed among the limiting partitions of the scalar
-- claimed frontier, with an unchanged claim, for longer than the threshold, measured
-- over every §4.15 evaluation instant (kept or not) and T. One finding per
-- partition, for its longest stay (the earliest of equally long ones).
WITH hist AS (
    SELECT scope_id, idx, t, frontier,
           row_number() OVER (PARTITION BY scope_id ORDER BY idx) AS k
    FROM rc_frontier_at
    WHERE basis = 'claimed' AND history
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
pieces AS (
    -- a claim of the run's value, over the run's instants that its stretch [lo, hi)
    -- holds: a partition limiting the frontier at each of them (the claims of a
    -- partition never overlap, so each instant is counted once)
    SELECT s.scope_id, s.partition_id, s.v,
           greatest(s.lo, r.first) AS lo, least(s.hi, r.last + 1) AS hi
    FROM rc_claim_segments AS s
    JOIN runs AS r
        ON r.scope_id = s.scope_id AND r.frontier = s.v AND s.lo <= r.last AND r.first < s.hi
    WHERE NOT s.unknown AND NOT s.incomparable
),
located AS (
    -- the piece's first instant (at or after lo) and last (before hi), by number; a
    -- stretch between two instants holds none (a > b)
    SELECT p.scope_id, p.partition_id, p.v, a.k AS a, a.t AS since, b.k AS b, b.next_t
    FROM pieces AS p
    ASOF JOIN nexts AS a ON a.scope_id = p.scope_id AND p.lo <= a.idx
    ASOF JOIN nexts AS b ON b.scope_id = p.scope_id AND p.hi > b.idx
),
islands AS (
    -- a stay: the pieces of one partition and claim at consecutive instants (two
    -- stretches of one claim value, back to back, are one stay)
    SELECT *, sum(fresh) OVER (PARTITION BY scope_id, partition_id, v ORDER BY a) AS island
    FROM (
        SELECT *,
               CASE WHEN a = lag(b) OVER (PARTITION BY scope_id, partition_id, v ORDER BY a) + 1
                    THEN 0 ELSE 1 END AS fresh
        FROM located
        WHERE a <= b
    )
),
stays AS (
    -- until: the instant after the stay's last, or T after the scope's last instant
    -- (next_t null: arg_max_null keeps that null, where arg_max skipped it and cut
    -- the stay short at the last instant)
    SELECT scope_id, partition_id, v, min(since) AS since,
           coalesce(arg_max_null(next_t, b), rc_as_of()) AS until
    FROM islands
    GROUP BY scope_id, partition_id, v, island
),
longest AS (
    SELECT scope_id, partition_id,
           arg_max({'since': since, 'until': until, 'claim': v},
                   {'length': epoch_ns(until) - epoch_ns(since), 'earlier': -epoch_ns(since)}) AS stay
    FROM stays
    WHERE epoch_ns(until) - epoch_ns(since) > $stall_ns
    GROUP BY scope_id, partition_id
)
SELECT
    'stalled_partition' AS rule, 'info' AS severity,
    scope_id, partition_id, NULL::BIGINT AS epoch, stay.since AS at, NULL::VARCHAR AS event_id,
    NULL::VARCHAR AS attempt_id, NULL::BIGINT AS generation, NULL::VARCHAR AS page_id,
    partition_id || ' held the claimed frontier at ' || CAST(stay.claim.v AS VARCHAR)
        || ' for ' || CAST(round((epoch_ns(stay.until) - epoch_ns(stay.since)) / 6e10, 1) AS VARCHAR)
        || ' minutes' AS message,
    to_json({'since': stay.since, 'until': stay.until,
             'seconds': (epoch_ns(stay.until) - epoch_ns(stay.since)) / 1e9,
             'claimed_through': stay.claim.v, 'claimed_inclusive': stay.claim.i = 1}) AS evidence
FROM longest
