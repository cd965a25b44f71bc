-- The provider certificate at T (§4.9): the snapshot's bounds with snapshot
-- evidence; with receipts evidence the highest finality among counting pages.
SELECT
    p.scope_id,
    p.partition_id,
    CASE p.evidence
        WHEN 'snapshot' THEN rc_cert(b.complete_through, b.complete_inclusive, p.discrete)
        WHEN 'receipts' THEN f.finality
    END AS provider
FROM rc_partitions AS p
LEFT JOIN snapshot_bounds AS b
    ON b.scope_id = p.scope_id AND b.partition_id = p.partition_id
LEFT JOIN (
    SELECT c.scope_id, c.partition_id,
           max(rc_cert(c.finality_through, c.finality_inclusive, p2.discrete)) AS finality
    FROM rc_counting_pages AS c
    JOIN rc_partitions AS p2 USING (scope_id, partition_id)
    WHERE c.finality_through IS NOT NULL
    GROUP BY c.scope_id, c.partition_id
) AS f ON f.scope_id = p.scope_id AND f.partition_id = p.partition_id
