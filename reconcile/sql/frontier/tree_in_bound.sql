-- A bound from above on the proven frontier at every instant: the least of some of
-- the proven basis' parts (the least of fewer values is never lower). Each page's
-- receiving steps are replaced by the greatest value they take
-- (rc_receiving_windows.high): wherever a page's window covers an instant, one of
-- its steps covers it with a value no greater. Left out are the event blockers and
-- the snapshot prefix: under snapshot evidence they are about one per event (under
-- receipts evidence, few: failed, mutated or late events), and the bound is for the
-- receiving steps, which only receipts evidence has; leaving parts out only makes
-- the bound looser, never lower than the frontier.
SELECT scope_id AS grp, lo, hi, v
FROM rc_base_segments
WHERE v IS NOT NULL AND part NOT IN ('event', 'prefix')
UNION ALL
SELECT scope_id, lo, hi, high
FROM rc_receiving_windows
