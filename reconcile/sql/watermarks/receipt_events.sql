-- Each event's receipts counted at T, aggregated: the one pass over receipts.
SELECT
    scope_id,
    partition_id,
    event_id,
    min(position) AS min_pos,
    max(position) AS max_pos,
    min(recorded_at) AS first_at,
    min(recorded_at) FILTER (WHERE rc_durable(outcome)) AS durable_at,
    count(*) FILTER (WHERE rc_durable(outcome)) AS n_durable,
    min(recorded_at) FILTER (WHERE outcome = 'failed') AS failed_at,
    min(recorded_at) FILTER (WHERE outcome = 'ineligible') AS ineligible_at,
    min(recorded_at) FILTER (WHERE outcome = 'ineligible' AND eligibility_stable) AS stable_at,
    count(*) AS n_receipts,
    min(page_id) AS page_lo,
    max(page_id) AS page_hi
FROM receipts
WHERE recorded_at <= rc_as_of()
GROUP BY scope_id, partition_id, event_id
