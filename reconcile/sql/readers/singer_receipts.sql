-- receipts: every RECORD of an incremental stream, read as delivered (committed) in its run; its event_id the
-- values of its stream's key properties joined by '|', its position its replication
-- key's value, its time its message's (msg_at: message_times.sql); its
-- partition, in a partitioned stream, the one its fields name.
WITH records AS (
    SELECT m.* EXCLUDE (key_properties), s.key_properties, s.replication_key,
           from_json(m.record, '"MAP(VARCHAR, JSON)"') AS fields
    FROM rc_singer_messages AS m
    JOIN rc_singer_streams AS s USING (stream)
    WHERE m.type = 'RECORD' AND s.replication_key IS NOT NULL  -- full-table: not audited
)
SELECT
    stream AS scope_id,
    coalesce(rc_partition_of(pk.keys, record), stream) AS partition_id,
    array_to_string(list_transform(key_properties, lambda k: json_extract_string(fields[k], '$')), '|')
        AS event_id,
    -- a value the cursor's reading cannot read (a timestamp that is no time, an
    -- integer past 64 bits) is refused by its run and line
    CASE
        WHEN json_extract_string(fields[replication_key], '$') IS NOT NULL
             AND rc_source_cursor(json_extract_string(fields[replication_key], '$')) IS NULL
            THEN error(format(
                'the RECORD at {} line {} (stream {}) has {} "{}", which is not a value of the'
                || ' kind its replication key holds: where it lies cannot be read',
                run, line, stream, replication_key,
                left(json_extract_string(fields[replication_key], '$'), 60)))
        ELSE rc_source_cursor(json_extract_string(fields[replication_key], '$'))
    END AS position,
    'committed' AS outcome,
    CAST(NULL AS BOOLEAN) AS eligibility_stable,
    run AS attempt_id,
    CAST(NULL AS BIGINT) AS owner_epoch,
    CAST(NULL AS VARCHAR) AS page_id,
    msg_at AS recorded_at
FROM records
LEFT JOIN rc_partition_keys AS pk USING (stream)
ORDER BY run_no, line
