-- Each event of the snapshot, over its rows visible at T (§4.2). An event is
-- ineligible only when every visible row says so, and its ineligibility is proven
-- only when every such row is stable: the readings that never overclaim. Also, for an
-- event whose every row is at one position, when it appeared there: the first
-- visible_at of its eligible rows, what rule late_insert reads (none where an eligible
-- row was visible from the start). An event at several positions appeared at each
-- position on its own (watermarks/late_events reads its rows again): a lowest
-- position and a first time taken over all its rows may come from two rows, and
-- pair a position with a time it did not appear at. And proven_until:
-- where rows became visible at different times, the rows visible at an earlier
-- instant may prove what all of them at T do not. As rows come, the proof can only
-- be lost (one eligible or unstable row ends it), so it holds from the event's first
-- visibility until the first row that ends it; proven_until is that row's visible_at
-- when it came after the first visibility, and null otherwise (the state at T held
-- from the first visibility on). The events of the
-- slice of partitions in rc_slice only (a range of partition_id, from $slice_first
-- to $slice_last, a filter the scan applies itself): one slice's aggregate stays in
-- memory where the whole snapshot's spills.
WITH agg AS (
    SELECT
        p.pk,
        s.event_id,
        min(s.position) AS min_pos,
        max(s.position) AS max_pos,
        bool_or(s.eligible) AS eligible,
        bool_and(s.eligibility_stable) AS stable,
        min(s.visible_at) AS visible_at,
        bool_or(s.visible_at IS NULL) AS always_visible,
        bool_or(s.eligible AND s.visible_at IS NULL) AS eligible_always,
        min(s.position) FILTER (WHERE s.eligible AND s.visible_at IS NOT NULL) AS late_pos,
        min(s.visible_at) FILTER (WHERE s.eligible AND s.visible_at IS NOT NULL) AS late_at,
        -- the first row that ends the proof (eligible, or not stable)
        min(coalesce(s.visible_at, rc_dawn())) FILTER (WHERE s.eligible OR NOT s.eligibility_stable)
            AS unproven_at
    FROM snapshot AS s
    JOIN rc_partitions AS p
        ON p.scope_id = s.scope_id AND p.partition_id = s.partition_id AND p.evidence = 'snapshot'
    WHERE (s.visible_at IS NULL OR s.visible_at <= rc_as_of())
      AND s.partition_id BETWEEN $slice_first AND $slice_last
    GROUP BY p.pk, s.event_id
),
judged AS (
    -- an event at one position appeared unless an eligible row was there from the start
    SELECT *, min_pos = max_pos AND NOT eligible_always AS may_appear
    FROM agg
)
SELECT
    pk,
    event_id,
    min_pos,
    max_pos,
    eligible,
    stable,
    visible_at,
    always_visible,
    CASE WHEN may_appear THEN late_pos END AS appeared_pos,
    CASE WHEN may_appear THEN late_at END AS appeared_at,
    CASE
        WHEN unproven_at > CASE WHEN always_visible THEN rc_dawn() ELSE visible_at END
            THEN unproven_at
    END AS proven_until
FROM judged
