-- The `watermarks` table of §6 at T.
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
    claim_status,
    eligible_events,
    durable_events,
    replayed_events,
    latest.event_id AS claimed_event_id
FROM rc_certs
ORDER BY scope_id, partition_id
