-- The scopes found in the tables whose rows only the partitions' phases read
-- (receipts, snapshot, snapshot_bounds): the part of "every scope found in any
-- table" (§3) that a scope's own phase cannot see.
SELECT DISTINCT scope_id FROM receipts
UNION SELECT DISTINCT scope_id FROM snapshot
UNION SELECT DISTINCT scope_id FROM snapshot_bounds
