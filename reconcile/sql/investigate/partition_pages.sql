-- A partition's pages in fetch order, with how many receipts each got.
SELECT
    g.fetched_at, g.attempt_id, g.page_seq, g.page_id, g.event_count, g.min_position,
    g.max_position, g.request_token, g.next_token, g.finality_through, g.finality_inclusive,
    (SELECT count(*) FROM receipts AS r
     WHERE r.scope_id = g.scope_id AND r.page_id = g.page_id) AS receipts
FROM pages AS g
WHERE g.scope_id = $scope_id AND g.partition_id = $partition_id
ORDER BY g.fetched_at, g.page_seq
