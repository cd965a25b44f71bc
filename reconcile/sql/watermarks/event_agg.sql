-- Each known event of the slice, for a log set with snapshot rows: its receipts
-- counted at T and its snapshot rows visible at T (§4.2), aggregated together in one
-- pass, where two aggregates and a full join of their results would each hold the
-- slice's events. The events of the slice of partitions in rc_slice only (a range of
-- partition_id, from $slice_first to $slice_last, a filter the scans apply
-- themselves). Of the snapshot rows: the lowest and highest position; eligible
-- unless every row says not, stable only if every row is (the readings that never
-- overclaim); the first visible_at; and over its eligible rows that became visible
-- (not there from the start) the lowest position and the first visible_at, what
-- rule late_insert reads. Of the receipts, what watermarks/receipt_events gives.
WITH event_rows AS (
    SELECT
        rc_pk(scope_id, partition_id) AS pk, event_id, position, recorded_at, outcome,
        eligibility_stable, CAST(NULL AS BOOLEAN) AS eligible,
        CAST(NULL AS TIMESTAMP_NS) AS visible_at, false AS snap
    FROM receipts
    WHERE recorded_at <= rc_as_of()
      AND partition_id BETWEEN $slice_first AND $slice_last
    UNION ALL
    SELECT
        p.pk, s.event_id, s.position, CAST(NULL AS TIMESTAMP_NS), CAST(NULL AS VARCHAR),
        s.eligibility_stable, s.eligible, s.visible_at, true
    FROM snapshot AS s
    JOIN rc_partitions AS p
        ON p.scope_id = s.scope_id AND p.partition_id = s.partition_id AND p.evidence = 'snapshot'
    WHERE (s.visible_at IS NULL OR s.visible_at <= rc_as_of())
      AND s.partition_id BETWEEN $slice_first AND $slice_last
)
SELECT
    pk,
    event_id,
    count(*) FILTER (WHERE snap) > 0 AS in_snapshot,
    min(position) FILTER (WHERE snap) AS min_pos,
    max(position) FILTER (WHERE snap) AS max_pos,
    bool_or(eligible) FILTER (WHERE snap) AS eligible,
    bool_and(eligibility_stable) FILTER (WHERE snap) AS stable,
    min(visible_at) FILTER (WHERE snap) AS visible_at,
    bool_or(visible_at IS NULL) FILTER (WHERE snap) AS always_visible,
    min(position) FILTER (WHERE snap AND eligible AND visible_at IS NOT NULL) AS appeared_pos,
    min(visible_at) FILTER (WHERE snap AND eligible AND visible_at IS NOT NULL) AS appeared_at,
    count(*) FILTER (WHERE NOT snap) > 0 AS receipted,
    min(position) FILTER (WHERE NOT snap) AS receipt_min_pos,
    min(recorded_at) AS first_at,
    min(recorded_at) FILTER (WHERE rc_durable(outcome)) AS durable_at,
    CAST(
        coalesce(bit_or(rc_outcome_bits(outcome, eligibility_stable)) FILTER (WHERE NOT snap), 0)
        | CASE WHEN count(*) FILTER (WHERE rc_durable(outcome)) > 1 THEN 16 ELSE 0 END
        | CASE
              WHEN min(position) FILTER (WHERE NOT snap) <> max(position) FILTER (WHERE NOT snap)
                  THEN 32
              ELSE 0
          END
        AS UTINYINT
    ) AS flags
FROM event_rows
GROUP BY pk, event_id
