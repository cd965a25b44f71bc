-- The receipts of each partition's blocking event (report.html's "why" panel): how
-- many were counted at T and the first few, oldest first, with their outcome,
-- attempt and page, so that a reader finds the event in the ingestion's own logs.
-- A blocking event with no receipt at all (not_attempted) has no row.
WITH blocked AS (
    SELECT scope_id, partition_id, blocking_event_id AS event_id
    FROM rc_watermarks
    WHERE blocking_event_id IS NOT NULL
),
got AS (
    SELECT r.scope_id, r.partition_id, r.event_id, r.position, r.outcome, r.attempt_id,
           r.page_id, r.recorded_at
    FROM receipts AS r
    SEMI JOIN blocked AS b
        ON b.scope_id = r.scope_id AND b.partition_id = r.partition_id
       AND b.event_id = r.event_id
    WHERE r.recorded_at <= rc_as_of()
)
SELECT
    scope_id,
    partition_id,
    count(*) AS receipt_count,
    list({'outcome': outcome, 'recorded_at': recorded_at, 'attempt_id': attempt_id,
          'page_id': page_id, 'position': position}
         ORDER BY recorded_at, attempt_id, page_id, outcome)[1:$shown] AS first_receipts
FROM got
GROUP BY scope_id, partition_id
ORDER BY scope_id, partition_id
