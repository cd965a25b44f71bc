-- rc_partition_keys: the keys of each partitioned stream's contexts (the fields that
-- say which partition a record, or an extract's row, is in), sorted.
SELECT stream, list_sort(list_distinct(flatten(list(json_keys(context))))) AS keys
FROM rc_singer_bookmarks
WHERE context IS NOT NULL AND NOT malformed
GROUP BY stream
