-- replayed_events: known events with more than one durable receipt (expected under
-- at-least-once delivery); one finding per partition with their number.
SELECT
    'replayed_events' AS rule, 'info' AS severity,
    scope_id, partition_id, NULL::BIGINT AS epoch, rc_as_of() AS at, NULL::VARCHAR AS event_id,
    NULL::VARCHAR AS attempt_id, NULL::BIGINT AS generation, NULL::VARCHAR AS page_id,
    CAST(replayed_events AS VARCHAR) || ' event(s) have more than one durable receipt' AS message,
    to_json({'events': replayed_events}) AS evidence
FROM rc_blocking
WHERE replayed_events > 0
