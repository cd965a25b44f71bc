-- Every partition's state and certificates at T (§4.6-§4.11), as structs.
WITH state AS (
    SELECT
        p.pk,
        p.scope_id,
        p.partition_id,
        p.evidence,
        p.discrete,
        s.ordering AS scope_ordering,
        b.block,
        b.reason,
        b.eligible_events,
        b.durable_events,
        b.replayed_events,
        c.committed,
        CASE WHEN b.block IS NOT NULL THEN rc_before(b.block.p, p.discrete) END AS consumer,
        pr.provider,
        cl.latest
    FROM rc_partitions AS p
    JOIN rc_scopes AS s ON s.scope_id = p.scope_id
    LEFT JOIN rc_blocking AS b ON b.pk = p.pk
    LEFT JOIN rc_committed AS c ON c.pk = p.pk
    LEFT JOIN rc_provider AS pr ON pr.scope_id = p.scope_id AND pr.partition_id = p.partition_id
    LEFT JOIN rc_claims AS cl ON cl.scope_id = p.scope_id AND cl.partition_id = p.partition_id
),
certs AS (
    SELECT
        *,
        CASE WHEN provider IS NOT NULL THEN rc_lower(consumer, provider) END AS proven,
        rc_lower(consumer, provider) AS refutation,
        CASE
            WHEN latest.watermark IS NOT NULL
                THEN rc_cert(latest.watermark, latest.inclusive, discrete)
        END AS claim
    FROM state
)
SELECT
    *,
    CASE
        WHEN claim IS NULL THEN 'no_claim'
        WHEN latest.ordering IS NOT NULL AND latest.ordering <> scope_ordering THEN 'incomparable'
        WHEN latest.inclusive IS NULL THEN 'unknown_endpoint'
        WHEN refutation IS NOT NULL AND claim > refutation THEN 'overclaim'
        WHEN proven IS NULL THEN 'no_proof'
        ELSE 'ok'
    END AS claim_status
FROM certs
