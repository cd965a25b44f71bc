-- watermark_regressed: a won write's claim is below the latest earlier won claim.
SELECT
    'watermark_regressed' AS rule, 'error' AS severity,
    scope_id, partition_id, NULL::BIGINT AS epoch, written_at AS at, NULL::VARCHAR AS event_id,
    attempt_id, generation, page_id,
    'claim through ' || rc_through_text(watermark, watermark_inclusive)
        || ' is below the earlier claim through '
        || rc_through_text(previous_claim.v, previous_claim.i = 1) AS message,
    -- certificates in inclusive form (§6), the write's watermark as written beside them
    to_json({'claimed_through': claim.v, 'claimed_inclusive': claim.i = 1,
             'watermark': watermark, 'watermark_inclusive': watermark_inclusive,
             'previous_through': previous_claim.v,
             'previous_inclusive': previous_claim.i = 1}) AS evidence
FROM rc_won
WHERE claim IS NOT NULL AND comparable AND previous_claim IS NOT NULL AND claim < previous_claim
