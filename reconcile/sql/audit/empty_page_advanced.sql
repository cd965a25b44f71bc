-- empty_page_advanced: a won write closing an empty page without finality raised the
-- claim (above the latest earlier claim, or from none) above its proven certificate
-- at written_at (or without one). A page fetched after T is absent (§4).
SELECT
    'empty_page_advanced' AS rule, 'error' AS severity,
    w.scope_id, w.partition_id, NULL::BIGINT AS epoch, w.written_at AS at, NULL::VARCHAR AS event_id,
    w.attempt_id, w.generation, w.page_id,
    'closing empty page ' || w.page_id || ' raised the claim to ' || CAST(w.watermark AS VARCHAR)
        || ' without the provider''s finality' AS message,
    -- certificates in inclusive form (§6), the write's watermark as written beside them
    to_json({'claimed_through': w.claim.v, 'claimed_inclusive': w.claim.i = 1,
             'watermark': w.watermark, 'watermark_inclusive': w.watermark_inclusive,
             'previous_through': w.claim_before.v, 'previous_inclusive': w.claim_before.i = 1,
             'proven_through': w.proven.v, 'proven_inclusive': w.proven.i = 1}) AS evidence
FROM rc_write_certs AS w
JOIN pages AS g ON g.scope_id = w.scope_id AND g.page_id = w.page_id
WHERE g.event_count = 0 AND g.finality_through IS NULL AND g.fetched_at <= rc_as_of()
  AND w.claim IS NOT NULL AND w.comparable
  AND (w.claim_before IS NULL OR w.claim > w.claim_before)
  AND (w.proven IS NULL OR w.claim > w.proven)
