-- table: scopes
-- column: domain
-- requires: scopes
-- message: the scope is declared discrete but the log set's coordinates are timestamps
SELECT s.scope_id, s.domain, 1 AS __rows, s.__file, s.__row
FROM scopes AS s
WHERE s.domain = 'discrete' AND $coordinate_type = 'timestamp'
ORDER BY s.scope_id
