-- A mapped table's Parquet files: their columns, the file (__file) and the row's
-- number within it (file_row_number, from 0). Hive folders become columns.
SELECT *
FROM read_parquet($files, union_by_name = true, filename = '__file', file_row_number = true)
