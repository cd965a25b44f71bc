-- For rule late_insert, slice by slice: the snapshot events of the slice
-- (rc_snapshot_slice) that became visible after a won claim of their partition,
-- written at or before then, already covered their position. An event appeared at a
-- position when its first eligible row there became visible (never where an eligible
-- row was there from the start): at its one position (rc_snapshot_slice), or, for an
-- event at several positions, at each of them (rc_moved). An appearance is late when
-- the highest claim written at or before it covers its position (rc_late_reach, each
-- partition's running highest claim, found by a search, where joining every event
-- with every write of its partition costs their product); an event with several is
-- named once, at its first late appearance. Run here, where the slice's events are in memory,
-- rather than over all snapshot events gathered.
WITH spans AS (
    -- each partition's run of instants, and its writes' times cut in stretches of w
    -- nanoseconds (about four per instant, from q0 * w on; k_max the last one's
    -- number)
    SELECT *, rc_floor_div(t_max, w) - rc_floor_div(t_min, w) AS k_max,
           rc_floor_div(t_min, w) AS q0
    FROM (
        SELECT pk, min(idx) AS first, max(idx) + 1 AS n,
               epoch_ns(min(t)) AS t_min, epoch_ns(max(t)) AS t_max,
               CAST((CAST(epoch_ns(max(t)) AS HUGEINT) - epoch_ns(min(t))) // (4 * count(*)) + 1
                    AS BIGINT) AS w
        FROM rc_late_reach
        SEMI JOIN rc_slice USING (pk)
        GROUP BY pk
    )
),
bounds AS (
    -- a bound from above on the reach within each stretch: the reach at its last
    -- nanosecond (the last stretch's: the last reach). The running highest claim only
    -- grows, so an event whose position lies above the bound of the stretch it
    -- appeared in is not late; only the others are searched (where claims trail the
    -- events, as ingestion has them, nearly none)
    SELECT b.pk, b.k, r.reach
    FROM (
        SELECT pk, k,
               CASE WHEN k = k_max THEN t_max ELSE (q0 + k + 1) * w - 1 END AS bound_ns
        FROM spans
        CROSS JOIN LATERAL (SELECT unnest(range(0, k_max + 1)) AS k) AS r
    ) AS b
    ASOF LEFT JOIN (SELECT pk, epoch_ns(t) AS t_ns, reach FROM rc_late_reach) AS r
        ON r.pk = b.pk AND r.t_ns <= b.bound_ns
),
appearances AS (
    SELECT pk, event_id, appeared_pos, appeared_at
    FROM rc_snapshot_slice
    WHERE appeared_at IS NOT NULL
    UNION ALL
    SELECT pk, event_id, appeared_pos, appeared_at FROM rc_moved
),
appeared AS (
    -- the appearances, each with its stretch: none before the partition's first write
    -- (no claim was written before them), the last one at or after its last write
    SELECT s.pk, s.event_id, s.appeared_pos, s.appeared_at, sp.first, sp.n,
           CASE
               WHEN epoch_ns(s.appeared_at) >= sp.t_max THEN sp.k_max
               ELSE rc_floor_div(epoch_ns(s.appeared_at), sp.w) - sp.q0
           END AS k
    FROM appearances AS s
    JOIN spans AS sp USING (pk)
    WHERE epoch_ns(s.appeared_at) >= sp.t_min
),
located AS (
    -- each appearance's first reach instant of its partition at or after appeared_at
    -- (n where none is), for the appearances that the bound of their stretch does
    -- not clear
    SELECT a.pk, a.event_id, a.appeared_pos, a.appeared_at,
           rc_reach_no(a.first, a.n, a.appeared_at) AS at_or_after
    FROM appeared AS a
    JOIN bounds AS b ON b.pk = a.pk AND b.k = a.k
    WHERE rc_cert(a.appeared_pos, true, true) <= b.reach
)
-- late when the highest claim written at or before appeared_at covers its position:
-- the reach found, where it came at appeared_at, else the one before it (of the same
-- partition: none where the event appeared before every write). The reach found is
-- the partition's own (n, past its last, is the next partition's first instant,
-- which may have come at appeared_at too). An event's first late appearance: by time,
-- then position
SELECT l.pk, l.event_id, l.appeared_pos AS position, l.appeared_at AS visible_at
FROM located AS l
LEFT JOIN rc_late_reach AS a ON a.idx = l.at_or_after AND a.pk = l.pk
JOIN rc_late_reach AS w
    ON w.idx = CASE WHEN a.t = l.appeared_at THEN l.at_or_after ELSE l.at_or_after - 1 END
WHERE w.pk = l.pk AND rc_cert(l.appeared_pos, true, w.discrete) <= w.reach
QUALIFY row_number() OVER (PARTITION BY l.pk, l.event_id ORDER BY l.appeared_at, l.appeared_pos) = 1
