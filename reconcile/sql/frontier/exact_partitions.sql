-- The partitions whose candidate points rc_exact holds: here, every partition of
-- the log set; where the points were evaluated elsewhere (by buckets of
-- partitions), those the buckets covered. Guard exact_covered checks that together
-- they cover every partition.
SELECT scope_id, partition_id FROM rc_partitions
