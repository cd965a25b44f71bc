-- Where each partition is a member of the epoch in force, in instant indices: one row
-- per stretch of consecutive epochs it is a member of (an epoch's instants follow the
-- one before's), not one per epoch. Every reader clips a partition's segments to its
-- stretches by joining on the partition: with a row per epoch, a log set of a
-- thousand epochs made a thousand rows of every segment before the clipping.
WITH ranges AS (
    SELECT scope_id, epoch, min(idx) AS lo, max(idx) + 1 AS hi
    FROM rc_instants
    WHERE epoch IS NOT NULL
    GROUP BY scope_id, epoch
),
spans AS (
    SELECT r.scope_id, m.partition_id, r.lo, r.hi
    FROM ranges AS r
    JOIN rc_members AS m ON m.scope_id = r.scope_id AND m.epoch = r.epoch AND m.role = 'member'
),
marked AS (
    -- a stretch starts where a span does not begin where the one before ended
    SELECT *,
           CASE WHEN lo = lag(hi) OVER (PARTITION BY scope_id, partition_id ORDER BY lo, hi)
                THEN 0 ELSE 1 END AS starts
    FROM spans
),
numbered AS (
    SELECT *,
           sum(starts) OVER (
               PARTITION BY scope_id, partition_id ORDER BY lo, hi ROWS UNBOUNDED PRECEDING
           ) AS stretch
    FROM marked
)
SELECT scope_id, partition_id, min(lo) AS lo, max(hi) AS hi
FROM numbered
GROUP BY scope_id, partition_id, stretch
