-- A mapped table's CSV files, with the types DuckDB detects: their columns, the file
-- (__file) and the row's number within it (file_row_number, from 0; the header is
-- not a row). The reader numbers rows across files in order: numbered again per file.
SELECT * EXCLUDE (ordinality),
    row_number() OVER (PARTITION BY __file ORDER BY ordinality) - 1 AS file_row_number
FROM read_csv($files, union_by_name = true, filename = '__file') WITH ORDINALITY
