-- stale_owner_won: a won write's owner_epoch is below that of an earlier won write.
-- Not for writes without compare-and-swap (__overwrite): they have no owner epoch.
SELECT
    'stale_owner_won' AS rule, 'critical' AS severity,
    scope_id, partition_id, NULL::BIGINT AS epoch, written_at AS at, NULL::VARCHAR AS event_id,
    attempt_id, generation, page_id,
    'won with owner epoch ' || CAST(owner_epoch AS VARCHAR) || ' after a write with owner epoch '
        || CAST(highest_epoch_before AS VARCHAR) AS message,
    to_json({'owner_epoch': owner_epoch, 'earlier_owner_epoch': highest_epoch_before}) AS evidence
FROM rc_won
WHERE NOT __overwrite AND owner_epoch < highest_epoch_before
