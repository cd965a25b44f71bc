-- The instants at which a selected partition's certificates can change (every
-- boundary of every step of §4's pieces, up to T): evaluating the exact evaluator
-- there and between gives the whole step function. As points of the evaluator
-- (point_id: any numbering).
WITH instants AS (
    -- each piece filtered to the selected partitions first: the pieces are of every
    -- partition (rc_event_segments about as long as the snapshot), the selection few
    SELECT scope_id, partition_id, from_t AS t FROM rc_claim_steps
    SEMI JOIN rc_selected USING (scope_id, partition_id)
    UNION SELECT scope_id, partition_id, from_t FROM rc_provider_steps
    SEMI JOIN rc_selected USING (scope_id, partition_id)
    UNION SELECT scope_id, partition_id, from_t FROM rc_event_segments
    SEMI JOIN rc_selected USING (scope_id, partition_id)
    UNION SELECT scope_id, partition_id, to_t FROM rc_event_segments
    SEMI JOIN rc_selected USING (scope_id, partition_id)
    WHERE to_t IS NOT NULL
    UNION SELECT scope_id, partition_id, until_t FROM rc_records
    SEMI JOIN rc_selected USING (scope_id, partition_id)
    WHERE until_t < rc_dusk()
    UNION SELECT scope_id, partition_id, fetched_at FROM rc_page_windows
    SEMI JOIN rc_selected USING (scope_id, partition_id)
    UNION SELECT scope_id, partition_id, end_t FROM rc_page_windows
    SEMI JOIN rc_selected USING (scope_id, partition_id)
    WHERE end_t < rc_dusk()
    UNION SELECT r.scope_id, r.partition_id, r.recorded_at
          FROM receipts AS r
          SEMI JOIN rc_page_windows AS w
              ON w.scope_id = r.scope_id AND w.partition_id = r.partition_id
             AND w.page_id = r.page_id
          SEMI JOIN rc_selected AS s
              ON s.scope_id = r.scope_id AND s.partition_id = r.partition_id
    -- a mutated event's sightings: a mutable page's block moves there (§4.5)
    UNION SELECT m.scope_id, m.partition_id, s.s.seen_at
          FROM rc_mutations AS m, unnest(m.sightings) AS s(s)
          SEMI JOIN rc_selected AS l ON l.scope_id = m.scope_id AND l.partition_id = m.partition_id
    UNION SELECT scope_id, partition_id, rc_dawn() FROM rc_selected
)
SELECT row_number() OVER () - 1 AS point_id, i.scope_id, i.partition_id,
       greatest(i.t, rc_dawn()) AS t
FROM instants AS i
WHERE i.t <= rc_as_of()
