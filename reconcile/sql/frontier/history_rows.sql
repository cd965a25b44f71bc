-- Frontier history rows for one basis (§4.15), from the frontier at every instant
-- (rc_frontier_at) and the intervals whose holders limit the frontier when their
-- value is the minimum (rc_hist_holders): the frontier, kept at the first instant and
-- wherever its epoch, kind, frontier or endpoint changes, with its limiting
-- partitions and its trigger. A template: each basis' step binds rc_frontier_at and
-- rc_hist_holders to its own tables (reconcile/engine/steps/frontier.py).
WITH stated AS (
    SELECT scope_id, idx, t, epoch, kind, frontier
    FROM rc_frontier_at
    WHERE basis = $basis AND history
),
kept AS (
    SELECT *
    FROM (
        SELECT
            *,
            lag({'e': epoch, 'k': kind, 'f': frontier}) OVER (PARTITION BY scope_id ORDER BY idx)
                AS previous,
            row_number() OVER (PARTITION BY scope_id ORDER BY idx) AS n
        FROM stated
    )
    WHERE n = 1 OR previous IS DISTINCT FROM {'e': epoch, 'k': kind, 'f': frontier}
),
limiting AS (
    SELECT k.scope_id, k.idx, list(DISTINCT h.partition_id ORDER BY h.partition_id) AS partitions
    FROM kept AS k
    JOIN rc_hist_holders AS h
        ON h.scope_id = k.scope_id AND h.lo <= k.idx AND k.idx < h.hi AND h.v = k.frontier
    WHERE k.kind = 'scalar'
    GROUP BY k.scope_id, k.idx
),
triggers AS (
    SELECT c.scope_id, c.written_at,
           arg_min({'p': c.partition_id, 'g': c.generation}, {'p': c.partition_id, 'g': c.generation})
               AS first_write
    FROM checkpoints AS c
    WHERE c.cas_result = 'won' AND c.written_at <= rc_as_of()
    GROUP BY c.scope_id, c.written_at
)
SELECT
    k.scope_id,
    $basis AS basis,
    k.t AS at,
    k.epoch,
    k.kind,
    k.frontier.v AS frontier,
    k.frontier.i = 1 AS frontier_inclusive,
    CASE WHEN k.kind = 'scalar' THEN coalesce(l.partitions, []) ELSE [] END AS limiting_partitions,
    tr.first_write.p AS trigger_partition_id,
    tr.first_write.g AS trigger_generation,
    k.idx
FROM kept AS k
LEFT JOIN limiting AS l USING (scope_id, idx)
LEFT JOIN triggers AS tr ON tr.scope_id = k.scope_id AND tr.written_at = k.t
ORDER BY k.scope_id, k.idx
