-- The end of the log set (§4): the latest of all its timestamps.
SELECT greatest(
    (SELECT max(written_at) FROM checkpoints),
    (SELECT max(recorded_at) FROM receipts),
    (SELECT max(fetched_at) FROM pages),
    (SELECT max(effective_at) FROM epochs),
    (SELECT max(published_at) FROM published),
    (SELECT max(visible_at) FROM snapshot)
) AS end_of_log
