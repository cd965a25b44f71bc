-- scopes: an incremental stream each, ordered by its cursor field.
SELECT stream AS scope_id, array_to_string(cursor_field, '.') AS ordering, $domain AS domain
FROM rc_airbyte_streams
WHERE sync_mode = 'incremental'
ORDER BY stream
