-- A mapped table's JSON Lines files with the types DuckDB detects (where a field of
-- times is in a format other than RFC 3339, or times lie inside objects or arrays:
-- DuckDB's own reading, to the microsecond): their fields, the file (__file) and the
-- line's number within it (file_row_number, from 0).
SELECT * EXCLUDE (ordinality),
    row_number() OVER (PARTITION BY __file ORDER BY ordinality) - 1 AS file_row_number
FROM read_json($files, format = 'newline_delimited', union_by_name = true, filename = '__file')
    WITH ORDINALITY
