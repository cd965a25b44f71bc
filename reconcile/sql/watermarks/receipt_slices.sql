-- The slices the event level runs in (EVENT_LEVEL of
-- reconcile/engine/steps/watermarks.py): the partitions in order of partition_id, cut into
-- $slices runs of about equal count, so each slice is a range of partition_id. A
-- slice's events and hash tables stay in memory where the whole would spill, and
-- where receipts are laid out by partition, the scan of a slice skips the row
-- groups of the others.
SELECT
    partition_id,
    CAST(
        floor((row_number() OVER (ORDER BY partition_id) - 1) * $slices / count(*) OVER ())
        AS INTEGER
    ) AS slice
FROM (SELECT DISTINCT partition_id FROM rc_partitions)
