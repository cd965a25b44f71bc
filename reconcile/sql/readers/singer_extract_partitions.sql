-- The first row of the extract (rc_source_extract) in a partitioned stream whose
-- partition no run names (no bookmark's context, no record): judged against no
-- claim, its loss would go unseen. Most often a value written otherwise than the runs
-- write it (2.0 or 02 for 2: partitions are named by their values as text).
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
ANTI JOIN known AS k ON k.stream = p.stream AND k.partition_id = p.partition_id
ORDER BY p.row_no
LIMIT 1
