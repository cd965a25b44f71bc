-- Each page's own receipts counted at T, in one pass over every receipt before the
-- event level's slices: what rc_page_receipts holds, with every receipt at its own
-- position. That is the answer wherever no event is mutated (§4.5); where one is,
-- watermarks/page_receipts counts its slice's pages again (each mutated event at
-- its sort position, which only the event level knows). The page's last event is
-- only its position here (last_pos): reading event_id for every receipt costs more
-- than half this pass (bench/EVENT_LEVEL.md), and only an incomplete page's block
-- names it, which watermarks/page_status does for the few pages that need it.
SELECT
    scope_id,
    partition_id,
    page_id,
    count(*) AS n_receipts,
    min(recorded_at) AS first_at,
    max(recorded_at) AS last_at,
    max(position) AS last_pos,
    min(position) AS own_min_pos
FROM receipts
WHERE recorded_at <= rc_as_of() AND page_id IS NOT NULL
GROUP BY scope_id, partition_id, page_id
