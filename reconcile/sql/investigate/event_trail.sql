-- Everything the log set says about one event up to T: each receipt recorded at or
-- before T, with the page it came on and that page's fetch (attempt, sequence,
-- tokens, finality; a page fetched after T is not known at T), in time order.
SELECT
    r.recorded_at,
    r.attempt_id,
    r.outcome,
    r.position,
    r.eligibility_stable,
    r.page_id,
    g.page_seq,
    g.fetched_at,
    g.event_count,
    g.min_position,
    g.max_position,
    g.request_token,
    g.next_token,
    g.finality_through
FROM receipts AS r
LEFT JOIN pages AS g
    ON g.scope_id = r.scope_id AND g.page_id = r.page_id AND g.fetched_at <= rc_as_of()
WHERE r.scope_id = $scope_id AND r.partition_id = $partition_id AND r.event_id = $event_id
    AND r.recorded_at <= rc_as_of()
ORDER BY r.recorded_at, r.attempt_id
