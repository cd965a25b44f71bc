-- Each won write with the partition's certificates at its written_at.
-- rc_point_certs is bound to the won writes' points (reconcile/engine/steps/rules.py).
SELECT w.*, c.consumer, c.provider, c.proven, c.refutation
FROM rc_won AS w
JOIN rc_point_certs AS c ON c.point_id = w.write_id
