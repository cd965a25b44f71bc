-- The proven frontier's value per instant: the least of what holds still (rc_fx)
-- and the exact certificates of the candidate points (rc_exact).
WITH exact AS (
    SELECT scope_id, idx, min(proven) AS v
    FROM rc_exact
    GROUP BY scope_id, idx
)
SELECT f.scope_id, f.idx, least(f.v, e.v) AS v
FROM rc_fx AS f
LEFT JOIN exact AS e USING (scope_id, idx)
