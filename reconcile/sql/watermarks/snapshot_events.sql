-- Each event of the snapshot, over its rows visible at T (§4.2). An event is
-- ineligible only when every visible row says so, and its ineligibility is proven
-- only when every such row is stable: the readings that never overclaim.
SELECT
    p.pk,
    s.event_id,
    min(s.position) AS min_pos,
    max(s.position) AS max_pos,
    bool_or(s.eligible) AS eligible,
    bool_and(s.eligibility_stable) AS stable,
    min(s.visible_at) AS visible_at,
    bool_or(s.visible_at IS NULL) AS always_visible
FROM snapshot AS s
JOIN rc_partitions AS p
    ON p.scope_id = s.scope_id AND p.partition_id = s.partition_id AND p.evidence = 'snapshot'
WHERE s.visible_at IS NULL OR s.visible_at <= rc_as_of()
GROUP BY p.pk, s.event_id
