-- Each event's receipts counted at T, aggregated: the one hash aggregate over every
-- event of the log set, kept lean on purpose (fixed-size states, one integer for the
-- partition): its lowest position, first receipt, first durable receipt, and what
-- its receipts say as bits (rc_outcome_bits). When failed and ineligible receipts
-- came is in rc_receipt_faults, for the open events that have any. The events of
-- the slice of partitions in rc_slice only: a slice is a range of partition_id,
-- from $slice_first to $slice_last, a filter the scan applies itself.
SELECT
    rc_pk(scope_id, partition_id) AS pk,
    event_id,
    min(position) AS sort_pos,
    min(recorded_at) AS first_at,
    min(recorded_at) FILTER (WHERE rc_durable(outcome)) AS durable_at,
    CAST(
        bit_or(rc_outcome_bits(outcome, eligibility_stable))
        | CASE WHEN count(*) FILTER (WHERE rc_durable(outcome)) > 1 THEN 16 ELSE 0 END
        | CASE WHEN min(position) <> max(position) THEN 32 ELSE 0 END
        AS UTINYINT
    ) AS flags
FROM receipts
WHERE recorded_at <= rc_as_of()
  AND partition_id BETWEEN $slice_first AND $slice_last
GROUP BY rc_pk(scope_id, partition_id), event_id
