-- The proven frontier's value per instant: the least of what holds still (rc_fx)
-- and the exact certificates of the candidate points (rc_point_certs).
WITH exact AS (
    SELECT c.scope_id, pt.idx, min(c.proven) AS v
    FROM rc_point_certs AS c
    JOIN rc_candidate_points AS pt USING (point_id)
    GROUP BY c.scope_id, pt.idx
)
SELECT f.scope_id, f.idx, least(f.v, e.v) AS v
FROM rc_fx AS f
LEFT JOIN exact AS e USING (scope_id, idx)
