-- Where each partition is a member of the epoch in force, in instant indices.
WITH ranges AS (
    SELECT scope_id, epoch, min(idx) AS lo, max(idx) + 1 AS hi
    FROM rc_instants
    WHERE epoch IS NOT NULL
    GROUP BY scope_id, epoch
)
SELECT r.scope_id, m.partition_id, r.epoch, r.lo, r.hi
FROM ranges AS r
JOIN rc_members AS m ON m.scope_id = r.scope_id AND m.epoch = r.epoch AND m.role = 'member'
