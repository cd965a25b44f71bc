-- A mapped table's JSON Lines files, each field read as $columns says (from
-- sniff_jsonl: DuckDB's detection, text kept as text): their fields, the file
-- (__file) and the line's number within it (file_row_number, from 0).
SELECT * EXCLUDE (ordinality),
    row_number() OVER (PARTITION BY __file ORDER BY ordinality) - 1 AS file_row_number
FROM read_json(
    $files,
    format = 'newline_delimited',
    union_by_name = true,
    columns = $columns,
    filename = '__file'
)
    WITH ORDINALITY
