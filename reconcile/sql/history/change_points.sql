-- The instants at which a selected partition's certificates can change (every
-- boundary of every step of §4's pieces, up to T): evaluating the exact evaluator
-- there and between gives the whole step function. As points of the evaluator
-- (point_id: any numbering).
WITH instants AS (
    SELECT scope_id, partition_id, from_t AS t FROM rc_claim_steps
    UNION SELECT scope_id, partition_id, from_t FROM rc_provider_steps
    UNION SELECT scope_id, partition_id, from_t FROM rc_event_segments
    UNION SELECT scope_id, partition_id, to_t FROM rc_event_segments WHERE to_t IS NOT NULL
    UNION SELECT scope_id, partition_id, until_t FROM rc_records WHERE until_t < rc_dusk()
    UNION SELECT scope_id, partition_id, fetched_at FROM rc_page_windows
    UNION SELECT scope_id, partition_id, end_t FROM rc_page_windows WHERE end_t < rc_dusk()
    UNION SELECT r.scope_id, r.partition_id, r.recorded_at
          FROM receipts AS r
          SEMI JOIN rc_page_windows AS w
              ON w.scope_id = r.scope_id AND w.partition_id = r.partition_id
             AND w.page_id = r.page_id
          SEMI JOIN rc_selected AS s
              ON s.scope_id = r.scope_id AND s.partition_id = r.partition_id
    UNION SELECT scope_id, partition_id, rc_dawn() FROM rc_selected
)
SELECT row_number() OVER () - 1 AS point_id, i.scope_id, i.partition_id,
       greatest(i.t, rc_dawn()) AS t
FROM instants AS i
SEMI JOIN rc_selected AS s ON s.scope_id = i.scope_id AND s.partition_id = i.partition_id
WHERE i.t <= rc_as_of()
