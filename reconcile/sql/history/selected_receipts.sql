-- The receipts counted at T of the partitions whose timelines are drawn
-- (rc_selected): read once, for the change points and the pages' moving blocks
-- alike, instead of a scan of every receipt each. Only the columns those read (not
-- event_id: plain text, the costliest column of a scan to decode).
SELECT r.scope_id, r.partition_id, r.page_id, r.position, r.recorded_at
FROM receipts AS r
SEMI JOIN rc_selected AS s ON s.scope_id = r.scope_id AND s.partition_id = r.partition_id
WHERE r.recorded_at <= rc_as_of()
