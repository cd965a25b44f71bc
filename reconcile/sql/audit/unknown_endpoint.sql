-- unknown_endpoint: a won claim has watermark_inclusive null.
SELECT
    'unknown_endpoint' AS rule, 'warning' AS severity,
    scope_id, partition_id, NULL::BIGINT AS epoch, written_at AS at, NULL::VARCHAR AS event_id,
    attempt_id, generation, page_id,
    'claim through ' || CAST(watermark AS VARCHAR) || ' does not say whether it includes its end'
        AS message,
    to_json({'watermark': watermark}) AS evidence
FROM rc_won
WHERE watermark IS NOT NULL AND watermark_inclusive IS NULL
