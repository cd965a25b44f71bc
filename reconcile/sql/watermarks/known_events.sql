-- The known events at T (§4.2) with their state (§4.3-§4.6): with snapshot evidence,
-- the snapshot's visible events and any receipted event it lacks; with receipts
-- evidence, the receipted events. An event seen at two positions is mutated: never
-- passable, sorted at the lowest.
WITH joined AS (
    SELECT
        coalesce(s.scope_id, r.scope_id) AS scope_id,
        coalesce(s.partition_id, r.partition_id) AS partition_id,
        coalesce(s.event_id, r.event_id) AS event_id,
        s.event_id IS NOT NULL AS in_snapshot,
        least(s.min_pos, r.min_pos) AS sort_pos,
        greatest(s.max_pos, r.max_pos) AS top_pos,
        s.eligible AS snap_eligible,
        s.stable AS snap_stable,
        s.visible_at,
        s.always_visible,
        r.first_at,
        r.durable_at,
        coalesce(r.n_durable, 0) AS n_durable,
        r.failed_at,
        r.ineligible_at,
        r.stable_at,
        coalesce(r.n_receipts, 0) AS n_receipts,
        r.page_lo,
        r.page_hi
    FROM rc_snapshot_events AS s
    FULL OUTER JOIN rc_receipt_events AS r
        ON r.scope_id = s.scope_id AND r.partition_id = s.partition_id AND r.event_id = s.event_id
),
stated AS (
    SELECT
        *,
        sort_pos <> top_pos AS mutated,
        n_durable > 0 AS durable,
        failed_at IS NOT NULL AS failed,
        ineligible_at IS NOT NULL AS ineligible_receipt,
        CASE
            WHEN in_snapshot THEN snap_eligible
            ELSE NOT (ineligible_at IS NOT NULL AND n_durable = 0)
        END AS eligible
    FROM joined
)
SELECT
    *,
    NOT mutated AND (
        durable
        OR CASE
            WHEN in_snapshot THEN NOT snap_eligible AND snap_stable
            ELSE stable_at IS NOT NULL AND NOT failed
        END
    ) AS passable,
    CASE
        WHEN mutated THEN 'ordering_mutated'
        WHEN failed THEN 'failed'
        WHEN NOT eligible OR (in_snapshot AND ineligible_receipt) THEN 'unstable_ineligible'
        ELSE 'not_attempted'
    END AS reason
FROM stated
