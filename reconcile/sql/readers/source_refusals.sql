-- The first row of the user's source extract (rc_source_extract, in file order) the
-- readers cannot take: no key, no cursor, or a cursor that is not of the artifacts'
-- kind (rc_source_cursor gives none for it: an integer, or an ISO timestamp).
SELECT
    row_no,
    key,
    cursor,
    CASE
        WHEN key IS NULL OR key = '' THEN 'has no key'
        WHEN cursor IS NULL OR cursor = '' THEN 'has no cursor'
        ELSE 'has a cursor of another kind than the artifacts'' cursors'
    END AS what
FROM rc_source_extract
WHERE key IS NULL OR key = '' OR cursor IS NULL OR cursor = ''
   OR rc_source_cursor(cursor) IS NULL
ORDER BY row_no
LIMIT 1
