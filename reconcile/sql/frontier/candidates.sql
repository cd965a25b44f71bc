-- The points (partition, instant) where a page being handled may hold the proven
-- frontier below everything that holds still: its moving part touching a run of
-- rc_fx whose value is not below the lowest the page's block can be. Those points
-- are evaluated exactly; all others cannot be lower than rc_fx. Nor can a point
-- whose lowest possible value lies above rc_moving_top: the proven frontier is never
-- above that instant's least moving top, and a point that may hold it lies at or
-- below it (where no top applies, every touching point stays).
WITH touching AS (
    SELECT s.scope_id, s.partition_id, greatest(s.lo, f.lo) AS lo, least(s.hi, f.hi) AS hi, s.v
    FROM rc_proven_segments AS s
    JOIN rc_fx_pieces AS f ON s.lo < f.hi AND f.lo < s.hi
    WHERE s.part = 'moving' AND (f.v IS NULL OR s.v <= f.v)
),
points AS (
    -- a point's lowest possible value: the least of its touching moving parts'
    SELECT scope_id, partition_id, idx, min(v) AS v
    FROM (SELECT scope_id, partition_id, v, unnest(range(lo, hi)) AS idx FROM touching)
    GROUP BY scope_id, partition_id, idx
)
SELECT p.scope_id, p.partition_id, p.idx, i.t
FROM points AS p
JOIN rc_instants AS i USING (scope_id, idx)
LEFT JOIN rc_moving_top AS mt USING (scope_id, idx)
WHERE mt.v IS NULL OR p.v <= mt.v
