-- The extract's rows of streams the artifacts hold but do not audit ($unaudited:
-- full-table, full-refresh) are left out: no claim is made on them to judge.
DELETE FROM rc_source_extract WHERE list_contains($unaudited, stream)
