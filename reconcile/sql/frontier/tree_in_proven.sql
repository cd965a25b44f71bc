-- The parts of the proven basis that hold still (everything but moving pages).
SELECT scope_id AS grp, lo, hi, v
FROM rc_proven_segments
WHERE part <> 'moving' AND v IS NOT NULL
