-- scopes: a table each (the root table of an incremental resource), ordered by its
-- cursor column.
SELECT stream AS scope_id, cursor_column AS ordering, $domain AS domain
FROM rc_dlt_streams
ORDER BY stream
