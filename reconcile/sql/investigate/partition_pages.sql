-- A partition's pages fetched at or before T, in fetch order, with how many receipts
-- each got up to T.
SELECT
    g.fetched_at, g.attempt_id, g.page_seq, g.page_id, g.event_count, g.min_position,
    g.max_position, g.request_token, g.next_token, g.finality_through, g.finality_inclusive,
    (SELECT count(*) FROM receipts AS r
     WHERE r.scope_id = g.scope_id AND r.page_id = g.page_id AND r.recorded_at <= rc_as_of())
        AS receipts
FROM pages AS g
WHERE g.scope_id = $scope_id AND g.partition_id = $partition_id AND g.fetched_at <= rc_as_of()
ORDER BY g.fetched_at, g.page_seq
