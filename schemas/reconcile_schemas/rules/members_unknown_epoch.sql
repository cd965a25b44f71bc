-- table: members
-- column: epoch
-- requires: members epochs
-- message: the members row names an epoch that epochs lacks
SELECT m.scope_id, m.epoch, m.partition_id, 1 AS __rows, m.__file, m.__row
FROM members AS m
WHERE NOT EXISTS (
    SELECT 1
    FROM epochs AS e
    WHERE e.scope_id = m.scope_id AND e.epoch = m.epoch
)
ORDER BY m.scope_id, m.epoch, m.partition_id
