-- A mapped table's CSV files (RFC 4180: a header row, fields quoted with ", the
-- mapping's delimiter) as text: their columns, the file (__file) and the row's
-- number within it (file_row_number, from 0; the header is not a row). Every column
-- is read as text; reconcile.mapping.bind casts each to the type sniff_csv detects,
-- except those the contract reads as text ("007" stays "007"). The reader numbers
-- rows across files in order: numbered again per file.
SELECT * EXCLUDE (ordinality),
    row_number() OVER (PARTITION BY __file ORDER BY ordinality) - 1 AS file_row_number
FROM read_csv(
    $files,
    header = true,
    delim = $delimiter,
    quote = '"',
    escape = '"',
    union_by_name = true,
    filename = '__file',
    all_varchar = true
)
    WITH ORDINALITY
