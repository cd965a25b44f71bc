-- Every membership change with the epoch where its proof first stands (null: none).
SELECT c.scope_id, c.epoch, c.partition_id, c.change, c.cutover.v AS cutover, c.proved_in,
       e.effective_at
FROM rc_changes AS c
JOIN rc_epochs AS e USING (scope_id, epoch)
ORDER BY c.scope_id, c.epoch, c.partition_id
