-- The first row of the user's source extract (rc_source_extract, in file order) the
-- readers cannot take: a stream that is none of the streams the artifacts hold
-- ($streams, audited, and $unaudited, whose rows are left out: a misspelt stream's
-- rows would be judged against no claim, their loss unseen), and, of the audited
-- streams' rows, no key, no cursor, a cursor that is not of the artifacts' kind
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
        WHEN stream IS NULL
             OR NOT (list_contains($streams, stream) OR list_contains($unaudited, stream))
            THEN 'names stream ' || coalesce('''' || stream || '''', 'null')
                 || ', which is none of the streams audited ('
                 || array_to_string($streams, ', ') || ')'
        WHEN key IS NULL OR key = '' THEN 'has no key'
        WHEN cursor IS NULL OR cursor = '' THEN 'has no cursor'
        WHEN rc_source_cursor(cursor) IS NULL
            THEN 'has a cursor of another kind than the artifacts'' cursors'
        ELSE 'names the key row ' || first_row || ' names already'
    END AS what
FROM rows
WHERE stream IS NULL
   OR NOT (list_contains($streams, stream) OR list_contains($unaudited, stream))
   OR (list_contains($streams, stream) AND (
       key IS NULL OR key = '' OR cursor IS NULL OR cursor = ''
       OR rc_source_cursor(cursor) IS NULL OR row_no > first_row))
ORDER BY row_no
LIMIT 1
