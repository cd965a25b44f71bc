-- The provider certificate as a step function (§4.9): the running maximum of
-- finality over counting pages in fetch order; the snapshot's bounds throughout.
WITH finality AS (
    SELECT c.scope_id, c.partition_id, c.fetched_at,
           max(rc_cert(c.finality_through, c.finality_inclusive, p.discrete)) AS cert
    FROM rc_counting_pages AS c
    JOIN rc_partitions AS p USING (scope_id, partition_id)
    WHERE p.evidence = 'receipts' AND c.finality_through IS NOT NULL
    GROUP BY c.scope_id, c.partition_id, c.fetched_at
)
SELECT scope_id, partition_id, fetched_at AS from_t,
       max(cert) OVER (PARTITION BY scope_id, partition_id ORDER BY fetched_at
                       ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS cert
FROM finality
UNION ALL
SELECT b.scope_id, b.partition_id, rc_dawn(), rc_cert(b.complete_through, b.complete_inclusive, p.discrete)
FROM snapshot_bounds AS b
JOIN rc_partitions AS p USING (scope_id, partition_id)
WHERE p.evidence = 'snapshot'
