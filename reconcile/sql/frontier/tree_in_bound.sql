-- A bound from above on the proven frontier at every instant: every part of the
-- proven basis that has a value, each page's receiving steps replaced by the
-- greatest value they take (rc_receiving_windows.high). Wherever a page's window
-- covers an instant, one of its steps covers it with a value no greater, so the
-- least of these is at or above the proven frontier's.
SELECT scope_id AS grp, lo, hi, v
FROM rc_base_segments
WHERE v IS NOT NULL
UNION ALL
SELECT scope_id, lo, hi, high
FROM rc_receiving_windows
