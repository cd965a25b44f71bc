-- The moving pages' tops (the highest their block reaches: rc_proven_segments), where
-- their partition has a provider certificate: after the partition's last stretch
-- without one (its provider segments cover every instant of its membership). There
-- the partition's proven certificate, the least of its consumer's (at most the
-- page's block) and its provider's, is at most the top; so is the proven frontier.
WITH provided_from AS (
    SELECT scope_id, partition_id, coalesce(max(hi) FILTER (WHERE v IS NULL), 0) AS lo
    FROM rc_proven_segments
    WHERE part = 'provider'
    GROUP BY scope_id, partition_id
)
SELECT s.scope_id AS grp, greatest(s.lo, p.lo) AS lo, s.hi, s.top AS v
FROM rc_proven_segments AS s
JOIN provided_from AS p USING (scope_id, partition_id)
WHERE s.part = 'moving' AND s.top IS NOT NULL AND greatest(s.lo, p.lo) < s.hi
