-- Snapshot evidence, events visible from the start (§4.2): every one is known from
-- the start and passable from a time on (its first durable receipt, or always when
-- the snapshot proves it ineligible). The prefix of such events is complete up to
-- the first one not yet passable; the running maximum of passable times in event
-- order gives every time that prefix advanced. A row per record: the prefix stops at
-- `cert` until `until_t`. Every snapshot event visible from the start is in
-- rc_open_events. An event whose early rows proved it ineligible for a while
-- (proven_until) is passable, then not: rc_event_segments has it.
WITH simple AS (
    SELECT
        p.scope_id,
        p.partition_id,
        k.event_id,
        k.sort_pos,
        p.discrete,
        CASE
            WHEN NOT k.snap_eligible AND k.snap_stable THEN rc_dawn()
            ELSE coalesce(k.durable_at, rc_dusk())
        END AS passable_at
    FROM rc_open_events AS k
    JOIN rc_partitions AS p USING (pk)
    WHERE k.in_snapshot AND k.always_visible AND NOT k.mutated AND k.proven_until IS NULL
),
running AS (
    SELECT
        *,
        max(passable_at) OVER (
            PARTITION BY scope_id, partition_id ORDER BY sort_pos, event_id
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS until_t
    FROM simple
)
SELECT scope_id, partition_id, until_t, arg_min(rc_before(sort_pos, discrete), {'p': sort_pos, 'e': event_id}) AS cert
FROM running
WHERE until_t > rc_dawn()
GROUP BY scope_id, partition_id, until_t
