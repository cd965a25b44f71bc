-- Each event of the snapshot, over its rows visible at T (§4.2). An event is
-- ineligible only when every visible row says so, and its ineligibility is proven
-- only when every such row is stable: the readings that never overclaim. Also, over
-- its eligible rows that became visible (not there from the start), the lowest
-- position and the first visible_at: what rule late_insert reads (none where an
-- eligible row was visible from the start and every row is at one position). And proven_until:
-- where rows became visible at different times, the rows visible at an earlier
-- instant may prove what all of them at T do not. As rows come, the proof can only
-- be lost (one eligible or unstable row ends it), so it holds from the event's first
-- visibility until the first row that ends it; proven_until is that row's visible_at
-- when it came after the first visibility, and null otherwise (the state at T held
-- from the first visibility on). The events of the
-- slice of partitions in rc_slice only (a range of partition_id, from $slice_first
-- to $slice_last, a filter the scan applies itself): one slice's aggregate stays in
-- memory where the whole snapshot's spills.
SELECT
    p.pk,
    s.event_id,
    min(s.position) AS min_pos,
    max(s.position) AS max_pos,
    bool_or(s.eligible) AS eligible,
    bool_and(s.eligibility_stable) AS stable,
    min(s.visible_at) AS visible_at,
    bool_or(s.visible_at IS NULL) AS always_visible,
    -- none where an eligible row was there from the start at the event's one
    -- position: the event never appeared (a row at another position did, and is read
    -- so)
    CASE WHEN NOT (bool_or(s.eligible AND s.visible_at IS NULL) AND min(s.position) = max(s.position)) THEN
        min(s.position) FILTER (WHERE s.eligible AND s.visible_at IS NOT NULL)
    END AS appeared_pos,
    CASE WHEN NOT (bool_or(s.eligible AND s.visible_at IS NULL) AND min(s.position) = max(s.position)) THEN
        min(s.visible_at) FILTER (WHERE s.eligible AND s.visible_at IS NOT NULL)
    END AS appeared_at,
    CASE
        WHEN min(coalesce(s.visible_at, rc_dawn())) FILTER (WHERE s.eligible OR NOT s.eligibility_stable)
             > CASE WHEN bool_or(s.visible_at IS NULL) THEN rc_dawn() ELSE min(s.visible_at) END
            THEN min(coalesce(s.visible_at, rc_dawn())) FILTER (WHERE s.eligible OR NOT s.eligibility_stable)
    END AS proven_until
FROM snapshot AS s
JOIN rc_partitions AS p
    ON p.scope_id = s.scope_id AND p.partition_id = s.partition_id AND p.evidence = 'snapshot'
WHERE (s.visible_at IS NULL OR s.visible_at <= rc_as_of())
  AND s.partition_id BETWEEN $slice_first AND $slice_last
GROUP BY p.pk, s.event_id
