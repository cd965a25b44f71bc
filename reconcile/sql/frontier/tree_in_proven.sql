-- Every part of the proven basis that has a value (a stretch without a provider
-- certificate has none: rc_proven_counts counts it).
SELECT scope_id AS grp, lo, hi, v
FROM rc_proven_segments
WHERE v IS NOT NULL
