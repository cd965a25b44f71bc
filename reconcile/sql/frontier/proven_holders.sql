-- Intervals whose partition holds the proven frontier where their value is its
-- value: every part of the proven basis that has a value.
SELECT scope_id, partition_id, lo, hi, v
FROM rc_proven_segments
WHERE v IS NOT NULL
