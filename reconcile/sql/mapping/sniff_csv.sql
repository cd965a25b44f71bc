-- The types DuckDB detects in one of a mapped table's CSV files, among bool, integer,
-- float and text only: text times stay text, for the mapping's format to read (a
-- detected "01/02/2026" would be a guess between two dates). One row, if the file
-- has any: a file of a header alone says nothing of its columns' types.
SELECT *
FROM read_csv(
    $file,
    header = true,
    delim = $delimiter,
    quote = '"',
    escape = '"',
    auto_type_candidates = ['BOOLEAN', 'BIGINT', 'DOUBLE', 'VARCHAR']
)
LIMIT 1
