-- The points (partition, instant) where a page being handled may hold the proven
-- frontier below everything that holds still: its moving part touching a run of
-- rc_fx whose value is not below the lowest the page's block can be. Those points
-- are evaluated exactly; all others cannot be lower than rc_fx.
WITH touching AS (
    SELECT s.scope_id, s.partition_id, greatest(s.lo, f.lo) AS lo, least(s.hi, f.hi) AS hi
    FROM rc_proven_segments AS s
    JOIN rc_fx_pieces AS f ON s.lo < f.hi AND f.lo < s.hi
    WHERE s.part = 'moving' AND (f.v IS NULL OR s.v <= f.v)
),
points AS (
    SELECT DISTINCT scope_id, partition_id, unnest(range(lo, hi)) AS idx
    FROM touching
)
SELECT p.scope_id, p.partition_id, p.idx, i.t
FROM points AS p
JOIN rc_instants AS i USING (scope_id, idx)
