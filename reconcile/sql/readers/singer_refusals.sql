-- What the Singer reader refuses, found in one pass over the streams and bookmarks:
-- the first stream with partitioned bookmarks (their records do not say their
-- partition), and the streams that name no replication key (not incremental).
SELECT
    (SELECT min(stream) FROM rc_singer_bookmarks WHERE partitioned) AS partitioned,
    (SELECT list(stream ORDER BY stream) FROM rc_singer_streams WHERE replication_key IS NULL)
        AS without_cursor
