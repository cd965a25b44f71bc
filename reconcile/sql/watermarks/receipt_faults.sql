-- For each event with a failed or ineligible receipt counted at T: when the first
-- of each kind came (§4.3-§4.4; the history needs them, the state at T only needs
-- rc_receipt_events.flags). One filtered pass over receipts.
SELECT
    rc_pk(scope_id, partition_id) AS pk,
    event_id,
    min(recorded_at) FILTER (WHERE outcome = 'failed') AS failed_at,
    min(recorded_at) FILTER (WHERE outcome = 'ineligible') AS ineligible_at,
    min(recorded_at) FILTER (WHERE outcome = 'ineligible' AND eligibility_stable) AS stable_at
FROM receipts
WHERE recorded_at <= rc_as_of() AND outcome IN ('failed', 'ineligible')
GROUP BY rc_pk(scope_id, partition_id), event_id
