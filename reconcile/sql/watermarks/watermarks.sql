-- The `watermarks` table of §6 at T.
WITH state AS (
    SELECT
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
    JOIN rc_scopes AS s USING (scope_id)
    LEFT JOIN rc_blocking AS b USING (scope_id, partition_id)
    LEFT JOIN rc_committed AS c USING (scope_id, partition_id)
    LEFT JOIN rc_provider AS pr USING (scope_id, partition_id)
    LEFT JOIN rc_claims AS cl USING (scope_id, partition_id)
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
    rc_as_of() AS as_of,
    scope_id,
    partition_id,
    evidence,
    committed.p AS committed_position,
    committed.e AS committed_event_id,
    CASE WHEN block.s = 0 AND block.k = 1 THEN block.e END AS blocking_event_id,
    block.p AS blocking_position,
    reason AS blocking_reason,
    consumer.v AS consumer_through,
    consumer.i = 1 AS consumer_inclusive,
    provider.v AS provider_through,
    provider.i = 1 AS provider_inclusive,
    proven.v AS proven_through,
    proven.i = 1 AS proven_inclusive,
    CASE WHEN latest.inclusive IS NULL THEN latest.watermark ELSE claim.v END AS claimed_through,
    CASE WHEN latest.inclusive IS NULL THEN NULL ELSE claim.i = 1 END AS claimed_inclusive,
    CASE WHEN claim IS NOT NULL THEN latest.generation END AS claimed_generation,
    CASE
        WHEN claim IS NULL THEN 'no_claim'
        WHEN latest.ordering IS NOT NULL AND latest.ordering <> scope_ordering THEN 'incomparable'
        WHEN latest.inclusive IS NULL THEN 'unknown_endpoint'
        WHEN refutation IS NOT NULL AND claim > refutation THEN 'overclaim'
        WHEN proven IS NULL THEN 'no_proof'
        ELSE 'ok'
    END AS claim_status,
    eligible_events,
    durable_events,
    replayed_events,
    latest.event_id AS claimed_event_id
FROM certs
ORDER BY scope_id, partition_id
