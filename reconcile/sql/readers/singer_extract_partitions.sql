-- The first row of the extract (rc_source_extract) of a partitioned stream none of
-- whose rows is in a partition a run names (a bookmark's context, a record): the
-- extract writes the partition's values otherwise than the runs (2.0 or 02 for 2:
-- partitions are named by their values as text), and judged against no claim every
-- loss of the stream would go unseen. A partition the runs do not name beside ones
-- they do is the source's newer partition: read, as unclaimed.
WITH known AS (
    SELECT b.stream, rc_partition_of(pk.keys, b.context) AS partition_id
    FROM rc_singer_bookmarks AS b
    JOIN rc_partition_keys AS pk USING (stream)
    WHERE b.context IS NOT NULL AND NOT b.malformed
    UNION
    SELECT m.stream, rc_partition_of(pk.keys, m.record)
    FROM rc_singer_messages AS m
    JOIN rc_partition_keys AS pk USING (stream)
    WHERE m.type = 'RECORD'
),
placed AS (
    SELECT e.row_no, e.stream, e.key, rc_partition_of(pk.keys, e.fields) AS partition_id
    FROM rc_source_extract AS e
    JOIN rc_partition_keys AS pk USING (stream)
)
SELECT p.row_no, p.stream, p.key, p.partition_id
FROM placed AS p
WHERE p.stream NOT IN (
    SELECT p2.stream FROM placed AS p2
    JOIN known AS k ON k.stream = p2.stream AND k.partition_id = p2.partition_id
)
ORDER BY p.row_no
LIMIT 1
