-- Intervals whose partition holds the proven frontier where their value is its
-- value: what holds still, and each candidate point's exact certificate.
SELECT scope_id, partition_id, lo, hi, v
FROM rc_proven_segments
WHERE part <> 'moving' AND v IS NOT NULL
UNION ALL
SELECT c.scope_id, c.partition_id, pt.idx, pt.idx + 1, c.proven
FROM rc_point_certs AS c
JOIN rc_candidate_points AS pt USING (point_id)
WHERE c.proven IS NOT NULL
