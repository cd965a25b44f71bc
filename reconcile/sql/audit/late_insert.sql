-- late_insert: an eligible snapshot event became visible after a won claim of its
-- partition (written at or before visible_at) already covered its position.
-- The late events are found in the event level's slices (watermarks/late_slice,
-- gathered in rc_late_events); only those are joined with the writes here, for the
-- first that covered each, in the won writes' order (write_id: written_at,
-- generation, attempt_id, then what they write), so that writes tied on the first
-- two name the same one whatever the order of the rows in the files.
WITH flagged AS (
    SELECT p.scope_id, p.partition_id, l.event_id, l.position, l.visible_at
    FROM rc_late_events AS l
    JOIN rc_partitions AS p USING (pk)
),
covered AS (
    SELECT l.scope_id, l.partition_id, l.event_id, l.position, l.visible_at,
           arg_min({'generation': w.generation, 'attempt_id': w.attempt_id,
                    'written_at': w.written_at, 'through': w.claim.v,
                    'inclusive': w.claim.i = 1, 'watermark': w.watermark},
                   w.write_id) AS first_cover
    FROM flagged AS l
    JOIN rc_won AS w ON w.scope_id = l.scope_id AND w.partition_id = l.partition_id
    WHERE w.written_at <= l.visible_at AND w.claim IS NOT NULL AND w.comparable
      AND rc_cert(l.position, true, w.discrete) <= w.claim
    GROUP BY l.scope_id, l.partition_id, l.event_id, l.position, l.visible_at
)
SELECT
    'late_insert' AS rule, 'critical' AS severity,
    scope_id, partition_id, NULL::BIGINT AS epoch, visible_at AS at, event_id,
    first_cover.attempt_id AS attempt_id, first_cover.generation AS generation, NULL::VARCHAR AS page_id,
    'event ' || event_id || ' at ' || CAST(position AS VARCHAR)
        || ' appeared after a claim through '
        || rc_through_text(first_cover.through, first_cover.inclusive)
        || ' covered it' AS message,
    to_json({'position': position, 'visible_at': visible_at, 'covered_by': first_cover}) AS evidence
FROM covered
