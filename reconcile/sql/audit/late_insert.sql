-- late_insert: an eligible snapshot event became visible after a won claim of its
-- partition (written at or before visible_at) already covered its position.
-- An event is late when the highest claim written at or before visible_at covers
-- it (an ASOF join on the partition's running highest claim, where joining every
-- event with every write of its partition costs their product); only those late
-- are joined with the writes, for the first that covered.
WITH reach AS (
    -- at each instant a won write came, the highest claim (comparable) written up
    -- to then: one row per instant, so that the ASOF join has one to find
    SELECT rc_pk(scope_id, partition_id) AS pk, written_at, any_value(discrete) AS discrete,
           max(reach) AS reach
    FROM (
        SELECT scope_id, partition_id, written_at, discrete,
               max(claim) FILTER (WHERE comparable) OVER (
                   PARTITION BY scope_id, partition_id ORDER BY write_id
                   ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
               ) AS reach
        FROM rc_won
    )
    GROUP BY scope_id, partition_id, written_at
),
late AS (
    -- over each event's eligible rows that became visible (rc_snapshot_events), late
    -- when the highest claim written at or before visible_at covers its position
    SELECT s.pk, s.event_id, s.appeared_pos AS position, s.appeared_at AS visible_at
    FROM rc_snapshot_events AS s
    ASOF JOIN reach AS w ON w.pk = s.pk AND w.written_at <= s.appeared_at
    WHERE s.appeared_at IS NOT NULL AND rc_cert(s.appeared_pos, true, w.discrete) <= w.reach
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
