-- The certificates of the selected partitions as step functions: one row per basis
-- at each instant its certificate changes (valid until the next row, or T).
-- rc_point_certs is bound to the timelines' points (reconcile/engine/steps/history.py).
WITH evaluated AS (
    SELECT c.scope_id, c.partition_id, c.t, c.proven, c.claim, c.claim_watermark,
           c.claim_inclusive, c.claim_generation
    FROM rc_point_certs AS c
),
bases AS (
    SELECT scope_id, partition_id, t, 'proven' AS basis, proven.v AS through,
           proven.i = 1 AS inclusive, proven IS NULL AS none, NULL::BIGINT AS generation
    FROM evaluated
    UNION ALL
    SELECT scope_id, partition_id, t, 'claimed',
           CASE WHEN claim_inclusive IS NULL THEN claim_watermark ELSE claim.v END,
           CASE WHEN claim_inclusive IS NULL THEN NULL ELSE claim.i = 1 END,
           claim IS NULL,
           CASE WHEN claim IS NOT NULL THEN claim_generation END
    FROM evaluated
),
changes AS (
    SELECT
        *,
        lag({'t': through, 'i': inclusive, 'n': none}) OVER (
            PARTITION BY scope_id, partition_id, basis ORDER BY t
        ) AS previous
    FROM bases
)
SELECT
    scope_id,
    partition_id,
    basis,
    CASE WHEN t > rc_dawn() THEN t END AS valid_from,  -- null: since the beginning
    through,
    inclusive,
    generation
FROM changes
WHERE (previous IS NULL AND NOT (none AND t = rc_dawn()))
   OR (previous IS NOT NULL AND previous IS DISTINCT FROM {'t': through, 'i': inclusive, 'n': none})
ORDER BY scope_id, partition_id, basis, valid_from NULLS FIRST
