-- late_insert: an eligible snapshot event became visible after a won claim of its
-- partition (written at or before visible_at) already covered its position.
-- An event is late when the highest claim written at or before visible_at covers
-- it (rc_late_reach, the partition's running highest claim, found by a search,
-- where joining every event with every write of its partition costs their
-- product); only those late are joined with the writes, for the first that covered.
WITH spans AS (
    SELECT pk, min(idx) AS first, max(idx) + 1 AS n FROM rc_late_reach GROUP BY pk
),
located AS (
    -- over each event's eligible rows that became visible (rc_snapshot_events): the
    -- first reach instant of its partition at or after appeared_at (n where none is)
    SELECT s.pk, s.event_id, s.appeared_pos, s.appeared_at,
           rc_reach_no(sp.first, sp.n, s.appeared_at) AS at_or_after
    FROM rc_snapshot_events AS s
    JOIN spans AS sp USING (pk)
    WHERE s.appeared_at IS NOT NULL
),
late AS (
    -- late when the highest claim written at or before appeared_at covers its
    -- position: the reach found, where it came at appeared_at, else the one before
    -- it (of the same partition: none where the event appeared before every write)
    SELECT l.pk, l.event_id, l.appeared_pos AS position, l.appeared_at AS visible_at
    FROM located AS l
    LEFT JOIN rc_late_reach AS a ON a.idx = l.at_or_after
    JOIN rc_late_reach AS w
        ON w.idx = CASE WHEN a.t = l.appeared_at THEN l.at_or_after ELSE l.at_or_after - 1 END
    WHERE w.pk = l.pk AND rc_cert(l.appeared_pos, true, w.discrete) <= w.reach
),
flagged AS (
    SELECT p.scope_id, p.partition_id, l.event_id, l.position, l.visible_at
    FROM late AS l
    JOIN rc_partitions AS p USING (pk)
),
covered AS (
    SELECT l.scope_id, l.partition_id, l.event_id, l.position, l.visible_at,
           arg_min({'generation': w.generation, 'attempt_id': w.attempt_id,
                    'written_at': w.written_at, 'through': w.watermark},
                   {'t': w.written_at, 'g': w.generation}) AS first_cover
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
        || ' appeared after a claim through ' || CAST(first_cover.through AS VARCHAR)
        || ' covered it' AS message,
    to_json({'position': position, 'visible_at': visible_at, 'covered_by': first_cover}) AS evidence
FROM covered
