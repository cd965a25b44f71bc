-- The first row of the extract in a partitioned stream that names no partition (it
-- lacks a partition key's column), with the keys it needs.
SELECT e.stream, pk.keys
FROM rc_source_extract AS e
JOIN rc_partition_keys AS pk USING (stream)
WHERE rc_partition_of(pk.keys, e.fields) IS NULL
LIMIT 1
