-- Guard on rc_exact: partitions whose candidate points were not evaluated. A
-- partition left out would count as no lower value: a silent overclaim.
SELECT count(*)
FROM rc_partitions AS p
ANTI JOIN rc_exact_partitions AS e USING (scope_id, partition_id)
