-- Each won write as a point of the exact evaluator: its partition at its written_at.
SELECT write_id AS point_id, scope_id, partition_id, written_at AS t
FROM rc_won
