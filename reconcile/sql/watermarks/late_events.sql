-- For rule late_insert, slice by slice: the snapshot events of the slice
-- (rc_snapshot_slice) that became visible after a won claim of their partition,
-- written at or before then, already covered their position. An event is late when
-- the highest claim written at or before appeared_at covers it (rc_late_reach, each
-- partition's running highest claim, found by a search, where joining every event
-- with every write of its partition costs their product). Run here, where the
-- slice's events are in memory, rather than over all snapshot events gathered.
WITH spans AS (
    SELECT pk, min(idx) AS first, max(idx) + 1 AS n
    FROM rc_late_reach
    SEMI JOIN rc_slice USING (pk)
    GROUP BY pk
),
located AS (
    -- over each event's eligible rows that became visible: the first reach instant
    -- of its partition at or after appeared_at (n where none is)
    SELECT s.pk, s.event_id, s.appeared_pos, s.appeared_at,
           rc_reach_no(sp.first, sp.n, s.appeared_at) AS at_or_after
    FROM rc_snapshot_slice AS s
    JOIN spans AS sp USING (pk)
    WHERE s.appeared_at IS NOT NULL
)
-- late when the highest claim written at or before appeared_at covers its position:
-- the reach found, where it came at appeared_at, else the one before it (of the same
-- partition: none where the event appeared before every write)
SELECT l.pk, l.event_id, l.appeared_pos AS position, l.appeared_at AS visible_at
FROM located AS l
LEFT JOIN rc_late_reach AS a ON a.idx = l.at_or_after
JOIN rc_late_reach AS w
    ON w.idx = CASE WHEN a.t = l.appeared_at THEN l.at_or_after ELSE l.at_or_after - 1 END
WHERE w.pk = l.pk AND rc_cert(l.appeared_pos, true, w.discrete) <= w.reach
