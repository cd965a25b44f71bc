-- The proven basis over the instants, in instant numbers, clipped to membership:
-- rc_base_segments (every part but the receiving blocks), and the block of each
-- page while its receipts come, step by step, for the pages whose steps can hold the
-- frontier (rc_receiving_segments). A view: the parts are read where they stand.
SELECT scope_id, partition_id, lo, hi, v, part FROM rc_base_segments
UNION ALL
SELECT scope_id, partition_id, lo, hi, v, part FROM rc_receiving_segments
