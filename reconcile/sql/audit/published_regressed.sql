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
times AS (
    -- per scope, epoch and instant: the highest value published, and whether +inf was
    SELECT scope_id, epoch, published_at,
           bool_or(value IS NULL) AS infinite, max(value) AS highest
    FROM pub
    GROUP BY scope_id, epoch, published_at
),
earlier AS (
    -- the highest published strictly before each instant: a running maximum, not a
    -- join of every publication with every earlier one (100,000 rows took minutes)
    SELECT scope_id, epoch, published_at,
           bool_or(infinite) OVER w AS earlier_infinite,
           max(highest) OVER w AS earlier_highest
    FROM times
    WINDOW w AS (
        PARTITION BY scope_id, epoch ORDER BY published_at
        ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
    )
),
compared AS (
    -- the highest earlier: +inf (null frontier) beats every value
    SELECT p.scope_id, p.published_at, p.epoch, p.frontier, p.value,
           e.earlier_infinite, e.earlier_highest
    FROM pub AS p
    JOIN earlier AS e
        ON e.scope_id = p.scope_id AND e.epoch IS NOT DISTINCT FROM p.epoch
       AND e.published_at = p.published_at
),
-- one finding per epoch's regression at the instant (its lowest value against that
-- epoch's highest earlier one, never another epoch's); several epochs at one instant
-- (the key is the instant) keep the first by message, then evidence (docs/contract.md
-- §8), whatever the order of the rows in the files
per_epoch AS (
    SELECT scope_id, epoch, published_at,
           'published ' || coalesce(CAST(min(frontier) AS VARCHAR), '+inf')
               || ' after having published ' || CASE WHEN bool_or(earlier_infinite) THEN '+inf'
               ELSE CAST(max(earlier_highest).v AS VARCHAR) END AS message,
           to_json({'published_frontier': min(frontier),
                    'earlier_highest': CASE WHEN bool_or(earlier_infinite) THEN NULL
                                            ELSE max(earlier_highest).v END,
                    'earlier_infinite': bool_or(earlier_infinite)}) AS evidence
    FROM compared
    WHERE value IS NOT NULL AND (earlier_infinite OR value < earlier_highest)
    GROUP BY scope_id, epoch, published_at
)
SELECT
    'published_regressed' AS rule, 'error' AS severity,
    scope_id, NULL::VARCHAR AS partition_id, epoch, published_at AS at,
    NULL::VARCHAR AS event_id, NULL::VARCHAR AS attempt_id, NULL::BIGINT AS generation, NULL::VARCHAR AS page_id,
    message, evidence
FROM per_epoch
QUALIFY row_number() OVER (PARTITION BY scope_id, published_at ORDER BY message, evidence) = 1
