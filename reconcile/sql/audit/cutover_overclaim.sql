-- cutover_overclaim: an epoch's cutover is above the frontier in force on the rows
-- strictly before its effective_at (proven basis where it is a scalar, else
-- claimed), or that frontier is a vector on both bases, or the cutover's endpoint is
-- unknown. A scope's first epoch is exempt.
WITH later AS (
    SELECT e.*
    FROM rc_epochs AS e
    WHERE e.declared AND e.effective_at <= rc_as_of()
      AND e.epoch > (SELECT min(f.epoch) FROM rc_epochs AS f WHERE f.scope_id = e.scope_id)
),
before AS (
    SELECT l.scope_id, l.epoch,
           max(CASE WHEN f.basis = 'proven' THEN f.kind END) AS proven_kind,
           max(CASE WHEN f.basis = 'proven' THEN f.frontier END) AS proven,
           max(CASE WHEN f.basis = 'claimed' THEN f.kind END) AS claimed_kind,
           max(CASE WHEN f.basis = 'claimed' THEN f.frontier END) AS claimed
    FROM later AS l
    JOIN rc_frontier_at AS f
        ON f.scope_id = l.scope_id AND f.t = make_timestamp_ns(epoch_ns(l.effective_at) - 1)
    GROUP BY l.scope_id, l.epoch
),
judged AS (
    SELECT l.*, b.proven_kind, b.proven, b.claimed_kind, b.claimed,
           CASE
               WHEN l.cutover_unknown THEN 'the cutover''s endpoint is unknown'
               WHEN b.proven_kind = 'scalar' AND l.cutover > b.proven
                   THEN 'above the proven frontier'
               WHEN b.proven_kind <> 'scalar' AND b.claimed_kind = 'scalar' AND l.cutover > b.claimed
                   THEN 'above the claimed frontier'
               WHEN b.proven_kind IS DISTINCT FROM 'scalar' AND b.claimed_kind IS DISTINCT FROM 'scalar'
                   THEN 'no scalar frontier before it'
           END AS why
    FROM later AS l
    LEFT JOIN before AS b USING (scope_id, epoch)
)
SELECT
    'cutover_overclaim' AS rule, 'error' AS severity,
    scope_id, NULL::VARCHAR AS partition_id, epoch, effective_at AS at, NULL::VARCHAR AS event_id,
    NULL::VARCHAR AS attempt_id, NULL::BIGINT AS generation, NULL::VARCHAR AS page_id,
    'epoch ' || CAST(epoch AS VARCHAR) || ' cuts over at ' || CAST(cutover_through AS VARCHAR)
        || ': ' || why AS message,
    to_json({'cutover_through': cutover_through, 'cutover_inclusive': cutover_inclusive,
             'proven_frontier': proven.v, 'proven_inclusive': proven.i = 1,
             'claimed_frontier': claimed.v, 'claimed_inclusive': claimed.i = 1,
             'why': why}) AS evidence
FROM judged
WHERE why IS NOT NULL
