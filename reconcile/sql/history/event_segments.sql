-- Event blockers over time (§4.2-§4.6): for every event that is, at some instant up
-- to T, known and not passable, the segments [from_t, to_t) where it blocks, with
-- the certificate it imposes: (its position, exclusive). Events durable from their
-- first receipt never block, nor do those proven ineligible by their first receipt
-- and never failed; snapshot events visible from the start are handled
-- by rc_records (but those whose early snapshot rows proved them ineligible for a
-- while: proven_until); neither is listed here. The events come from rc_open_events:
-- those durable from their first receipt are not there, and never block; nor are
-- those whose part is one wait, whose stretches rc_event_waits holds (trimmed where
-- a lower wait is in force: every reader takes the least certificate in force).
WITH ev AS (
    SELECT
        k.*,
        p.scope_id,
        p.partition_id,
        p.discrete,
        f.failed_at,
        f.ineligible_at,
        f.stable_at,
        m.sightings
    FROM rc_open_events AS k
    JOIN rc_partitions AS p USING (pk)
    LEFT JOIN rc_receipt_faults AS f USING (pk, event_id)
    LEFT JOIN rc_mutations AS m
        ON m.scope_id = p.scope_id AND m.partition_id = p.partition_id AND m.event_id = k.event_id
    WHERE NOT (NOT k.in_snapshot AND NOT k.mutated AND coalesce(k.durable_at = k.first_at, false))
      AND NOT (k.in_snapshot AND k.always_visible AND NOT k.mutated AND k.proven_until IS NULL)
      -- proven ineligible by its first receipt, and never failed: never blocks
      AND NOT (
          NOT k.in_snapshot AND NOT k.mutated
          AND coalesce(f.stable_at = k.first_at AND f.failed_at IS NULL, false)
      )
),
breaks AS (
    -- the instants its state may change at, in order: one row each, with the next
    SELECT *, bs[j] AS b, bs[j + 1] AS next_b
    FROM (
        SELECT *, unnest(range(1, len(bs) + 1)) AS j
        FROM (
            SELECT
                ev.*,
                list_sort(list_distinct(list_filter(
                    [CASE WHEN in_snapshot AND always_visible THEN rc_dawn() END,
                     CASE WHEN in_snapshot THEN visible_at END,
                     first_at, durable_at, failed_at, ineligible_at, stable_at, proven_until]
                    || coalesce([s.seen_at FOR s IN sightings], []),
                    lambda x: x IS NOT NULL
                ))) AS bs
            FROM ev
        )
    )
),
state AS (
    SELECT
        *,
        in_snapshot AND (always_visible OR visible_at <= b) AS in_snap,
        first_at <= b AS receipted,
        coalesce(len(list_distinct([s.position FOR s IN sightings IF s.seen_at <= b])) > 1, false)
            AS mutated_then,
        coalesce(list_min([s.position FOR s IN sightings IF s.seen_at <= b]), sort_pos) AS pos_then,
        coalesce(durable_at <= b, false) AS durable_then,
        coalesce(failed_at <= b, false) AS failed_then,
        coalesce(stable_at <= b, false) AS stable_then
    FROM breaks
),
blocking AS (
    SELECT
        scope_id,
        partition_id,
        event_id,
        b AS from_t,
        next_b AS to_t,
        (in_snap OR coalesce(receipted, false)) AND NOT (
            NOT mutated_then AND (
                durable_then
                OR CASE
                    WHEN in_snap THEN (NOT snap_eligible AND snap_stable)
                                      OR coalesce(b < proven_until, false)
                    ELSE stable_then AND NOT failed_then
                END
            )
        ) AS blocks,
        rc_before(pos_then, discrete) AS cert
    FROM state
)
SELECT scope_id, partition_id, from_t, to_t, cert
FROM blocking
WHERE blocks
UNION ALL
SELECT p.scope_id, p.partition_id, w.from_t, w.to_t, w.cert
FROM rc_event_waits AS w
JOIN rc_partitions AS p USING (pk)
