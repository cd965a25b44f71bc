-- The first and last partition_id of the slice in rc_slice: the range the scans of
-- receipts filter on, so that they can skip row groups by their statistics.
SELECT min(partition_id) AS slice_first, max(partition_id) AS slice_last FROM rc_slice
