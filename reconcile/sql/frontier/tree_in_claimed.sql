-- Claims that take part in the minimum: known endpoint, the scope's ordering.
SELECT scope_id AS grp, lo, hi, v
FROM rc_claim_segments
WHERE v IS NOT NULL AND NOT unknown AND NOT incomparable
