-- rc_candidates as points of the exact evaluator.
SELECT row_number() OVER (ORDER BY scope_id, partition_id, idx) - 1 AS point_id,
       scope_id, partition_id, t, idx
FROM rc_candidates
