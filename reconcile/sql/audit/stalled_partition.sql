-- stalled_partition: a partition stayed among the limiting partitions of the scalar
-- claimed frontier, with an unchanged claim, for longer than the threshold, measured
-- over every §4.15 evaluation instant (kept or not) and T. One finding per
-- partition, for its longest stay.
WITH hist AS (
    SELECT scope_id, idx, t, frontier,
           row_number() OVER (PARTITION BY scope_id ORDER BY idx) AS k
    FROM rc_frontier_at
    WHERE basis = 'claimed' AND history
),
nexts AS (
    SELECT *, lead(t) OVER (PARTITION BY scope_id ORDER BY k) AS next_t FROM hist
),
spans AS (
    -- each value the frontier took, and the instants it was it between: the claims
    -- that can hold it are of that value, over those instants
    SELECT scope_id, frontier, min(idx) AS first, max(idx) AS last
    FROM hist WHERE frontier IS NOT NULL GROUP BY scope_id, frontier
),
holding AS (
    SELECT s.scope_id, s.partition_id, s.v, s.lo, s.hi,
           -- one number per partition and claim: the islands' window partitions by it
           dense_rank() OVER (ORDER BY s.scope_id, s.partition_id, s.v) AS holder
    FROM rc_claim_segments AS s
    JOIN spans AS f
        ON f.scope_id = s.scope_id AND f.frontier = s.v AND s.lo <= f.last AND f.first < s.hi
    WHERE NOT s.unknown AND NOT s.incomparable
),
limiting AS (
    SELECT h.scope_id, s.partition_id, s.v, s.holder, h.k, h.t, h.next_t
    FROM nexts AS h
    JOIN holding AS s
        ON s.scope_id = h.scope_id AND s.v = h.frontier AND s.lo <= h.idx AND h.idx < s.hi
    WHERE h.frontier IS NOT NULL
),
islands AS (
    SELECT *, k - row_number() OVER (PARTITION BY holder ORDER BY k) AS island
    FROM limiting
),
stays AS (
    -- until: the instant after the island's last, or T after the scope's last
    -- instant (next_t null: arg_max_null keeps that null, where arg_max skipped it
    -- and cut the stay short at the last instant)
    SELECT scope_id, partition_id, v, min(t) AS since,
           coalesce(arg_max_null(next_t, k), rc_as_of()) AS until
    FROM islands
    GROUP BY scope_id, partition_id, v, island
),
longest AS (
    SELECT scope_id, partition_id,
           arg_max({'since': since, 'until': until, 'claim': v}, until - since) AS stay
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
             'claimed_through': stay.claim.v}) AS evidence
FROM longest
