-- rc_point_certs with certificates spelled out as through/inclusive columns (§6).
-- rc_point_certs is bound to the asked points (reconcile/engine/steps/history.py).
SELECT
    point_id,
    scope_id,
    partition_id,
    t,
    consumer.v AS consumer_through,
    consumer.i = 1 AS consumer_inclusive,
    provider.v AS provider_through,
    provider.i = 1 AS provider_inclusive,
    proven.v AS proven_through,
    proven.i = 1 AS proven_inclusive,
    refutation.v AS refutation_through,
    refutation.i = 1 AS refutation_inclusive,
    CASE WHEN claim_inclusive IS NULL THEN claim_watermark ELSE claim.v END AS claimed_through,
    CASE WHEN claim_inclusive IS NULL THEN NULL ELSE claim.i = 1 END AS claimed_inclusive,
    CASE WHEN claim IS NOT NULL THEN claim_generation END AS claimed_generation
FROM rc_point_certs
ORDER BY point_id
