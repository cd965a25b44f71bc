SELECT scope_id, partition_id, lo, hi, v
FROM rc_claim_segments
WHERE v IS NOT NULL AND NOT unknown AND NOT incomparable
