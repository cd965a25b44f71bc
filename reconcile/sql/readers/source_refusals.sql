-- The first row of the user's source extract (rc_source_extract, in file order) the
-- readers cannot take: no key, no cursor, a cursor that is not of the artifacts' kind
-- (rc_source_cursor gives none for it: an integer's text, or an ISO timestamp), or a
-- key an earlier row of its stream names (an extract is one query's result of
-- (key, cursor): a key twice would be one event at two places, which the audit would
-- take for the runs' ordering_mutated).
WITH rows AS (
    SELECT *, min(row_no) OVER (PARTITION BY stream, key) AS first_row
    FROM rc_source_extract
)
SELECT
    row_no,
    key,
    cursor,
    CASE
        WHEN key IS NULL OR key = '' THEN 'has no key'
        WHEN cursor IS NULL OR cursor = '' THEN 'has no cursor'
        WHEN rc_source_cursor(cursor) IS NULL
            THEN 'has a cursor of another kind than the artifacts'' cursors'
        ELSE 'names the key row ' || first_row || ' names already'
    END AS what
FROM rows
WHERE key IS NULL OR key = '' OR cursor IS NULL OR cursor = ''
   OR rc_source_cursor(cursor) IS NULL OR row_no > first_row
ORDER BY row_no
LIMIT 1
