-- Intervals whose partition holds the proven frontier where their value is its
-- value: what holds still, and each candidate point's exact certificate.
SELECT scope_id, partition_id, lo, hi, v
FROM rc_proven_segments
WHERE part <> 'moving' AND v IS NOT NULL
UNION ALL
SELECT scope_id, partition_id, idx, idx + 1, proven
FROM rc_exact
