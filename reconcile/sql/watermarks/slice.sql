-- The partitions of slice $slice of rc_slices: those the event-level steps look at
-- in this run. The scans of receipts filter on partition_id alone, so that they can
-- skip row groups by their statistics.
SELECT p.pk, p.scope_id, p.partition_id
FROM rc_partitions AS p
SEMI JOIN rc_slices AS s ON s.partition_id = p.partition_id AND s.slice = $slice
