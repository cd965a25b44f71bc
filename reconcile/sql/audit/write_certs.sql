-- Each won write with the partition's certificates at its written_at.
SELECT w.*, c.consumer, c.provider, c.proven, c.refutation
FROM rc_won AS w
JOIN rc_point_certs AS c ON c.point_id = w.write_id
