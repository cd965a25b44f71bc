-- Every point's certificates at its instant t (§4.8-§4.11), exactly as a log set cut
-- at t would give them: the consumer's (the lowest block among event blockers, the
-- snapshot's prefix and page windows), the provider's, the proven one, the
-- refutation bound and the claim.
-- A template: the points (rc_points), their pages (rc_point_pages), moving
-- receipts (rc_moving_receipts), instants (rc_point_order) and least event
-- blockers (rc_point_events) are bound per set of points
-- (evaluate_points in reconcile/engine/steps/history.py).
WITH events AS (
    -- the least event blocker in force at the point's instant (rc_point_events: a
    -- segment tree over the points' instants, rc_point_order)
    SELECT pt.point_id, e.v AS cert
    FROM rc_points AS pt
    JOIN rc_point_order AS o
        ON o.scope_id = pt.scope_id AND o.partition_id = pt.partition_id AND o.t = pt.t
    JOIN rc_point_events AS e ON e.grp = o.grp AND e.idx = o.idx
),
prefix AS (
    SELECT pt.point_id, r.cert
    FROM rc_points AS pt
    ASOF JOIN rc_records AS r
        ON r.scope_id = pt.scope_id AND r.partition_id = pt.partition_id AND r.until_t > pt.t
),
page_blocks AS (
    SELECT pp.point_id, min(coalesce(pp.cert, rc_before(mv.last_pos, pp.discrete))) AS cert
    FROM rc_point_pages AS pp
    ASOF LEFT JOIN rc_moving_receipts AS mv
        ON mv.scope_id = pp.scope_id AND mv.page_id = pp.page_id AND mv.recorded_at <= pp.t
    GROUP BY pp.point_id
),
providers AS (
    SELECT pt.point_id, ps.cert
    FROM rc_points AS pt
    ASOF JOIN rc_provider_steps AS ps
        ON ps.scope_id = pt.scope_id AND ps.partition_id = pt.partition_id AND ps.from_t <= pt.t
),
claims AS (
    SELECT pt.point_id, c.latest
    FROM rc_points AS pt
    ASOF JOIN rc_claim_steps AS c
        ON c.scope_id = pt.scope_id AND c.partition_id = pt.partition_id AND c.from_t <= pt.t
),
joined AS (
    SELECT
        pt.point_id,
        pt.scope_id,
        pt.partition_id,
        pt.t,
        p.discrete,
        s.ordering AS scope_ordering,
        least(ev.cert, pf.cert, pb.cert) AS consumer,
        pr.cert AS provider,
        cl.latest
    FROM rc_points AS pt
    JOIN rc_partitions AS p USING (scope_id, partition_id)
    JOIN rc_scopes AS s USING (scope_id)
    LEFT JOIN events AS ev USING (point_id)
    LEFT JOIN prefix AS pf USING (point_id)
    LEFT JOIN page_blocks AS pb USING (point_id)
    LEFT JOIN providers AS pr USING (point_id)
    LEFT JOIN claims AS cl USING (point_id)
)
SELECT
    point_id,
    scope_id,
    partition_id,
    t,
    consumer,
    provider,
    CASE WHEN provider IS NOT NULL THEN rc_lower(consumer, provider) END AS proven,
    rc_lower(consumer, provider) AS refutation,
    CASE
        WHEN latest.watermark IS NOT NULL THEN rc_cert(latest.watermark, latest.inclusive, discrete)
    END AS claim,
    latest.watermark AS claim_watermark,
    latest.inclusive AS claim_inclusive,
    latest.generation AS claim_generation,
    latest.attempt_id AS claim_attempt_id,
    latest.ordering IS NOT NULL AND latest.ordering <> scope_ordering AS claim_incomparable
FROM joined
