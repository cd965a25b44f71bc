-- table: checkpoints
-- column: cas_result
-- requires: checkpoints
-- message: the scope's checkpoints come both from files with compare-and-swap columns and from files without them; a scope's writes are all of one kind
-- One row per offending scope: the first row of each kind; __rows counts its rows.
SELECT
    c.scope_id,
    count(*) AS __rows,
    min(c.__file) FILTER (WHERE c.__overwrite) AS __file,
    min(c.__row) FILTER (WHERE c.__overwrite) AS __row,
    min(c.__file) FILTER (WHERE NOT c.__overwrite) AS file_with_cas
FROM checkpoints AS c
GROUP BY c.scope_id
HAVING bool_or(c.__overwrite) AND NOT bool_and(c.__overwrite)
ORDER BY c.scope_id
