-- The fields DuckDB detects in a mapped table's JSON Lines files, with their types
-- (no row): reconcile.mapping.bind reads the files again with these types, except
-- that a type DuckDB makes of a string (a time, a date, a UUID) is read as the text
-- it is, for the contract's reading of times to the nanosecond (TIMESTAMPTZ holds
-- microseconds) and identifiers as written.
SELECT *
FROM read_json($files, format = 'newline_delimited', union_by_name = true)
LIMIT 0
