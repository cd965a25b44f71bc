-- token_as_watermark: a won write's watermark equals its resume token or its page's
-- next token read as a coordinate.
SELECT
    'token_as_watermark' AS rule, 'error' AS severity,
    scope_id, partition_id, NULL::BIGINT AS epoch, written_at AS at, NULL::VARCHAR AS event_id,
    attempt_id, generation, page_id,
    'watermark ' || CAST(watermark AS VARCHAR) || ' is the page token ' || token AS message,
    to_json({'watermark': watermark, 'token': token, 'resume_token': resume_token,
             'next_token': next_token}) AS evidence
FROM rc_token_writes
