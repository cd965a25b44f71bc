-- table: epochs
-- column: cutover
-- requires: epochs
-- message: cutover is null outside the scope's first epoch
SELECT e.scope_id, e.epoch, e.cutover, 1 AS __rows, e.__file, e.__row
FROM epochs AS e
WHERE e.cutover IS NULL
  AND e.epoch > (SELECT min(f.epoch) FROM epochs AS f WHERE f.scope_id = e.scope_id)
ORDER BY e.scope_id, e.epoch
