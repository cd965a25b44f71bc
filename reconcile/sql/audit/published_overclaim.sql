-- published_overclaim: a published scalar (a null frontier read as +inf, a null
-- endpoint as inclusive) is above the recomputed frontier at published_at (proven
-- basis where it is a scalar, else claimed), or both recomputed frontiers are
-- vectors, or it names an epoch other than the one in force (a null epoch is
-- accepted only for a scope without epochs).
WITH pub AS (
    SELECT p.scope_id, p.published_at, p.epoch, p.frontier, p.frontier_inclusive,
           CASE WHEN p.frontier IS NOT NULL
                THEN rc_cert(p.frontier, p.frontier_inclusive, s.discrete) END AS value,
           EXISTS (SELECT 1 FROM epochs AS e WHERE e.scope_id = p.scope_id) AS has_epochs
    FROM published AS p
    JOIN rc_scopes AS s USING (scope_id)
    WHERE p.kind = 'scalar' AND p.published_at <= rc_as_of()
),
recomputed AS (
    SELECT scope_id, t,
           any_value(epoch) AS epoch,
           max(CASE WHEN basis = 'proven' THEN kind END) AS proven_kind,
           max(CASE WHEN basis = 'proven' THEN frontier END) AS proven,
           max(CASE WHEN basis = 'claimed' THEN kind END) AS claimed_kind,
           max(CASE WHEN basis = 'claimed' THEN frontier END) AS claimed
    FROM rc_frontier_at
    GROUP BY scope_id, t
),
judged AS (
    SELECT p.*, r.epoch AS epoch_in_force, r.proven_kind, r.proven, r.claimed_kind, r.claimed,
           CASE
               WHEN p.has_epochs AND p.epoch IS DISTINCT FROM r.epoch
                   THEN 'names epoch ' || coalesce(CAST(p.epoch AS VARCHAR), 'null')
                        || ', not the epoch in force ' || coalesce(CAST(r.epoch AS VARCHAR), '(none)')
               WHEN NOT p.has_epochs AND p.epoch IS NOT NULL AND p.epoch <> 1
                   THEN 'names epoch ' || CAST(p.epoch AS VARCHAR) || ' of a scope without epochs'
               WHEN r.proven_kind = 'scalar'
                    AND (p.value IS NULL OR p.value > r.proven)
                   THEN 'above the proven frontier'
               WHEN r.proven_kind <> 'scalar' AND r.claimed_kind = 'scalar'
                    AND (p.value IS NULL OR p.value > r.claimed)
                   THEN 'above the claimed frontier'
               WHEN r.proven_kind <> 'scalar' AND r.claimed_kind <> 'scalar'
                   THEN 'no scalar frontier to publish'
           END AS why
    FROM pub AS p
    JOIN recomputed AS r ON r.scope_id = p.scope_id AND r.t = p.published_at
)
-- Several published rows can share one instant (the key is the instant): each is
-- judged on its own, and the one finding kept is the first by message, then evidence
-- (docs/contract.md §8), every column of it from that one row, whatever the order of
-- the rows in the files.
SELECT
    'published_overclaim' AS rule, 'critical' AS severity,
    scope_id, NULL::VARCHAR AS partition_id,
    -- a null epoch of a scope without epochs is its epoch 1, as published_regressed has it
    coalesce(epoch, CASE WHEN NOT has_epochs THEN 1 END) AS epoch,
    published_at AS at,
    NULL::VARCHAR AS event_id, NULL::VARCHAR AS attempt_id, NULL::BIGINT AS generation, NULL::VARCHAR AS page_id,
    'published ' || coalesce(CAST(frontier AS VARCHAR), '+inf') || ': ' || why AS message,
    to_json({'published_frontier': frontier,
             'published_inclusive': frontier_inclusive,
             'published_epoch': epoch, 'epoch_in_force': epoch_in_force,
             'proven_frontier': proven.v, 'claimed_frontier': claimed.v,
             'why': why}) AS evidence
FROM judged
WHERE why IS NOT NULL
QUALIFY row_number() OVER (PARTITION BY scope_id, published_at ORDER BY message, evidence) = 1
