-- table: epochs
-- column: effective_at
-- requires: epochs
-- message: a higher epoch has an earlier effective_at than a lower epoch of the scope
-- Reports the higher epoch of each such pair, with the latest effective_at below it.
SELECT
    e.scope_id,
    e.epoch,
    e.effective_at,
    max(lower_epoch.effective_at) AS lower_epoch_effective_at,
    1 AS __rows,
    e.__file,
    e.__row
FROM epochs AS e
JOIN epochs AS lower_epoch
    ON lower_epoch.scope_id = e.scope_id
   AND lower_epoch.epoch < e.epoch
   AND lower_epoch.effective_at > e.effective_at
GROUP BY e.scope_id, e.epoch, e.effective_at, e.__file, e.__row
ORDER BY e.scope_id, e.epoch
