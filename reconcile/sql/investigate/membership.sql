-- Every membership change in force at T (its epoch's effective_at <= T), with the
-- epoch where its proof first stands, where that epoch is in force at T too (null:
-- no proof by T, as unproven_membership has it).
SELECT c.scope_id, c.epoch, c.partition_id, c.change, c.cutover.v AS cutover,
       CASE WHEN NOT c.cutover_unknown THEN c.cutover.i = 1 END AS cutover_inclusive,
       CASE WHEN proof.effective_at <= rc_as_of() THEN c.proved_in END AS proved_in,
       e.effective_at
FROM rc_changes AS c
JOIN rc_epochs AS e USING (scope_id, epoch)
LEFT JOIN rc_epochs AS proof ON proof.scope_id = c.scope_id AND proof.epoch = c.proved_in
WHERE e.effective_at <= rc_as_of()
ORDER BY c.scope_id, c.epoch, c.partition_id
