-- published_regressed: a published scalar is below the highest earlier published
-- scalar of the same epoch (a null epoch, for a scope without epochs, is epoch 1).
WITH pub AS (
    SELECT p.scope_id, p.published_at, p.frontier, p.frontier_inclusive,
           CASE WHEN p.epoch IS NULL AND NOT EXISTS (
                    SELECT 1 FROM epochs AS e WHERE e.scope_id = p.scope_id)
                THEN 1 ELSE p.epoch END AS epoch,
           CASE WHEN p.frontier IS NOT NULL
                THEN rc_cert(p.frontier, p.frontier_inclusive, s.discrete) END AS value
    FROM published AS p
    JOIN rc_scopes AS s USING (scope_id)
    WHERE p.kind = 'scalar' AND p.published_at <= rc_as_of()
),
compared AS (
    SELECT p.scope_id, p.published_at, p.epoch, p.frontier, p.value,
           -- the highest earlier: +inf (null frontier) beats every value
           bool_or(q.value IS NULL) AS earlier_infinite,
           max(q.value) AS earlier_highest
    FROM pub AS p
    JOIN pub AS q
        ON q.scope_id = p.scope_id AND q.epoch IS NOT DISTINCT FROM p.epoch
       AND q.published_at < p.published_at
    GROUP BY p.scope_id, p.published_at, p.epoch, p.frontier, p.value
)
SELECT
    'published_regressed' AS rule, 'error' AS severity,
    scope_id, NULL::VARCHAR AS partition_id, any_value(epoch) AS epoch, published_at AS at,
    NULL::VARCHAR AS event_id, NULL::VARCHAR AS attempt_id, NULL::BIGINT AS generation, NULL::VARCHAR AS page_id,
    'published ' || coalesce(CAST(min(frontier) AS VARCHAR), '+inf')
        || ' after having published ' || CASE WHEN bool_or(earlier_infinite) THEN '+inf'
        ELSE CAST(max(earlier_highest).v AS VARCHAR) END AS message,
    to_json({'published_frontier': min(frontier),
             'earlier_highest': CASE WHEN bool_or(earlier_infinite) THEN NULL
                                     ELSE max(earlier_highest).v END,
             'earlier_infinite': bool_or(earlier_infinite)}) AS evidence
FROM compared
WHERE value IS NOT NULL AND (earlier_infinite OR value < earlier_highest)
GROUP BY scope_id, published_at
