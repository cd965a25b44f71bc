-- skipped_event: at T an eligible known event with no durable outcome lies under its
-- partition's claimed certificate.
SELECT
    'skipped_event' AS rule, 'critical' AS severity,
    c.scope_id, c.partition_id, NULL::BIGINT AS epoch, rc_as_of() AS at, k.event_id,
    NULL::VARCHAR AS attempt_id, c.latest.generation AS generation, NULL::VARCHAR AS page_id,
    'event ' || k.event_id || ' at ' || CAST(k.sort_pos AS VARCHAR)
        || ' has no durable outcome but lies under the claim through '
        || rc_through_text(c.latest.watermark, c.latest.inclusive) AS message,
    to_json({'position': k.sort_pos, 'blocking_reason': k.reason,
             'claimed_through': c.claim.v, 'claimed_inclusive': c.claim.i = 1,
             'watermark': c.latest.watermark, 'watermark_inclusive': c.latest.inclusive,
             'claimed_generation': c.latest.generation}) AS evidence
FROM rc_open_events AS k
JOIN rc_certs AS c USING (pk)
WHERE k.eligible AND NOT k.durable
  AND c.claim IS NOT NULL AND c.claim_status <> 'incomparable'
  AND rc_cert(k.sort_pos, true, c.discrete) <= c.claim
