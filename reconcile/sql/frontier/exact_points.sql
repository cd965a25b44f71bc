-- The candidate points' exact proven certificates, by partition and instant number:
-- those that can be the proven frontier's value, not above what holds still at
-- their instant (rc_fx_pieces; a point no run covers is kept). The others can
-- neither lower the frontier nor hold it, and a point without a certificate
-- counts as no value (proven_min, proven_holders).
-- rc_point_certs is bound to the candidate points (reconcile/engine/steps/frontier.py).
SELECT c.scope_id, c.partition_id, pt.idx, c.proven
FROM rc_point_certs AS c
JOIN rc_candidate_points AS pt USING (point_id)
LEFT JOIN rc_fx_pieces AS f ON f.scope_id = c.scope_id AND f.lo <= pt.idx AND pt.idx < f.hi
WHERE c.proven IS NOT NULL AND (f.v IS NULL OR c.proven <= f.v)
