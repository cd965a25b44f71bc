-- scopes: a stream each, ordered by its replication key.
SELECT stream AS scope_id, replication_key AS ordering, $domain AS domain
FROM rc_singer_streams
WHERE replication_key IS NOT NULL
ORDER BY stream
