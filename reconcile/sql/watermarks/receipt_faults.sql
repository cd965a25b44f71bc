-- For each event not settled by its first receipt (rc_open_events) with a failed or
-- ineligible receipt counted at T: when the first of each kind came (§4.3-§4.4; the
-- history needs them for those events alone, the state at T only needs
-- rc_receipt_events.flags). One filtered pass over receipts, after the event level:
-- an event settled by its receipts as ineligible (rc_settled_ineligible) is not open
-- and needs no row here, however many such events a log set holds.
SELECT
    rc_pk(r.scope_id, r.partition_id) AS pk,
    r.event_id,
    min(r.recorded_at) FILTER (WHERE r.outcome = 'failed') AS failed_at,
    min(r.recorded_at) FILTER (WHERE r.outcome = 'ineligible') AS ineligible_at,
    min(r.recorded_at) FILTER (WHERE r.outcome = 'ineligible' AND r.eligibility_stable) AS stable_at
FROM receipts AS r
SEMI JOIN rc_open_events AS k
    ON k.pk = rc_pk(r.scope_id, r.partition_id) AND k.event_id = r.event_id
WHERE r.recorded_at <= rc_as_of() AND r.outcome IN ('failed', 'ineligible')
GROUP BY rc_pk(r.scope_id, r.partition_id), r.event_id
