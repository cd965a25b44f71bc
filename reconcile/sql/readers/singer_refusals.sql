-- What the Singer reader refuses, found in one pass over the streams, bookmarks and
-- records: the first STATE whose bookmarks are not of the Singer shape, the first
-- stream with both partitioned and unpartitioned bookmarks, the
-- first partitioned stream with a record that lacks a partition key (it cannot be
-- placed), the first whose contexts do not all name the same fields (a context
-- without one of them would name no partition of its own), the streams that name no
-- replication key (full-table: not audited), the incremental streams that name no key
-- properties (their records cannot be told apart), and the first record without a
-- value for a key property or its replication key; and how many
-- Singer messages and claiming bookmarks there are (none of either is refused),
-- and the first line that is no message the reader places (no type, a type Singer
-- does not have or BATCH, whose records lie in files it does not read, or a RECORD or
-- SCHEMA without its stream), and the first RECORD of a stream no SCHEMA describes
-- (its key properties unknown: dropped, its rows would look lost).
SELECT
    (SELECT arg_min(run || ', line ' || line, (run_no, line)) FROM rc_singer_bookmarks
     WHERE malformed) AS malformed,
    (SELECT min(stream) FROM (
        SELECT stream FROM rc_singer_bookmarks WHERE NOT malformed
        GROUP BY stream HAVING count(context) > 0 AND count(context) < count(*)
    )) AS mixed,
    (SELECT min(m.stream) FROM rc_singer_messages AS m
     JOIN rc_partition_keys AS pk USING (stream)
     WHERE m.type = 'RECORD' AND rc_partition_of(pk.keys, m.record) IS NULL) AS unplaced,
    (SELECT list(stream ORDER BY stream) FROM rc_singer_streams WHERE replication_key IS NULL)
        AS without_cursor,
    (SELECT arg_min(m.run || ', line ' || m.line, (m.run_no, m.line)) FROM rc_singer_messages AS m
     JOIN rc_singer_streams AS s USING (stream)
     WHERE m.type = 'RECORD' AND s.replication_key IS NOT NULL
       AND list_bool_or(list_transform(
               list_append(coalesce(s.key_properties, []), s.replication_key),
               lambda k: coalesce(json_type(m.record, '$."' || replace(replace(k, '\', '\\'), '"', '\"') || '"'), 'NULL') = 'NULL'
           ))) AS incomplete,
    (SELECT count(*) FROM rc_singer_messages WHERE type IN ('SCHEMA', 'RECORD', 'STATE'))
        AS messages,
    -- the bookmarks that claim a value (rc_singer_claims), not merely bookmarks: one on
    -- another replication key, or null, claims nothing
    (SELECT count(*) FROM rc_singer_claims WHERE coalesce(json_type(claimed), 'NULL') <> 'NULL')
        AS bookmarks,
    (SELECT arg_min(run || ', line ' || line || ' (' || coalesce('type ' || type, 'no type') || ')',
                    (run_no, line))
     FROM rc_singer_messages
     WHERE type IS NULL OR type NOT IN ('SCHEMA', 'RECORD', 'STATE', 'ACTIVATE_VERSION')
        OR (type IN ('SCHEMA', 'RECORD') AND stream IS NULL)) AS strange,
    (SELECT arg_min(m.run || ', line ' || m.line || ' (stream ' || m.stream || ')',
                    (m.run_no, m.line))
     FROM rc_singer_messages AS m
     WHERE m.type = 'RECORD' AND m.stream NOT IN (SELECT stream FROM rc_singer_streams))
        AS undescribed,
    (SELECT min(stream) FROM (
        SELECT stream FROM rc_singer_bookmarks WHERE context IS NOT NULL AND NOT malformed
        GROUP BY stream HAVING count(DISTINCT list_sort(json_keys(context))) > 1
    )) AS uneven,
    (SELECT list(stream ORDER BY stream) FROM rc_singer_streams
     WHERE replication_key IS NOT NULL AND len(coalesce(key_properties, [])) = 0) AS keyless,
    -- bookmarks keyed by a stream no SCHEMA describes whose name is an audited
    -- stream's tap_stream_id (tap-postgres' db-schema-table for schema-table,
    -- tap-mysql's db-table for table: it ends in -<stream>), while that stream has no
    -- claim: a claim for no audited stream, the stream's loss unseen. Bookmarks left
    -- from streams not selected in these runs are not refused.
    -- as the first such pair: [bookmark's stream, audited stream]
    (SELECT min([b.stream, s.stream]) FROM rc_singer_bookmarks AS b
     JOIN rc_singer_streams AS s ON ends_with(b.stream, '-' || s.stream)
     WHERE NOT b.malformed AND s.replication_key IS NOT NULL
       AND b.stream NOT IN (SELECT stream FROM rc_singer_streams)
       AND NOT EXISTS (SELECT 1 FROM rc_singer_claims AS c
                       WHERE c.stream = s.stream AND coalesce(json_type(c.claimed), 'NULL') <> 'NULL'))
        AS misnamed
