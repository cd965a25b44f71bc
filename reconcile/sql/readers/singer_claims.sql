-- What each well-shaped stream bookmark claims (claimed, JSON; SQL NULL where it
-- claims nothing), once the streams' replication keys are known (rc_singer_streams):
-- its replication_key_value (the Singer SDK's shape); where it has none, the value of
-- the field named by the stream's replication key (singer-python's
-- write_bookmark(state, stream, "updated_at", v): {"updated_at": v}), never dropped as
-- no claim. A bookmark that names another replication key than the stream's claims
-- nothing on this cursor: a tap discards it and reads the stream from its start.
SELECT
    b.*,
    CASE
        WHEN b.replication_key IS NOT NULL AND s.replication_key IS NOT NULL
             AND b.replication_key <> s.replication_key THEN NULL
        WHEN b.replication_key_value IS NOT NULL THEN b.replication_key_value
        WHEN s.replication_key IS NOT NULL
            THEN json_extract(b.bookmark, rc_key_path(s.replication_key))
    END AS claimed
FROM rc_singer_bookmarks AS b
LEFT JOIN rc_singer_streams AS s USING (stream)
WHERE NOT b.malformed
