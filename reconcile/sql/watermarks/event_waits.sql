-- The waits of the slice's simple events (the history's event blockers, §4.2-§4.6,
-- for most events): an event at one position, with no failed or ineligible
-- receipt, eligible where the snapshot has it and not visible from the start, and
-- durable by T blocks from the instant it became known (its first receipt, or its
-- snapshot row's visible_at, whichever is first) until its first durable receipt,
-- at (its position, exclusive). Every reader of the history takes the least
-- certificate in force at an instant, so a stretch where a wait no higher of the
-- same partition is in force is left out: each wait is trimmed by the one before it
-- in (certificate, from) order, at either end that one covers. Where events become
-- known and durable in position order, as ingestion mostly has them, what is left
-- is about one short stretch per event, where untrimmed each spans the whole wait.
-- These events are not in rc_open_events (watermarks/open_events): this table is
-- their whole part in the history.
WITH waits AS (
    SELECT
        k.pk,
        least(k.first_at, CASE WHEN k.in_snapshot THEN k.visible_at END) AS from_t,
        k.durable_at AS to_t,
        rc_before(k.sort_pos, p.discrete) AS cert
    FROM rc_known_events AS k
    JOIN rc_partitions AS p USING (pk)
    WHERE rc_simple_wait(k.mutated, k.in_snapshot, k.snap_eligible, k.always_visible, k.proven_until,
                         k.flags, k.durable_at)
),
previous AS (
    SELECT
        *,
        lag(from_t) OVER w AS prev_from,
        lag(to_t) OVER w AS prev_to
    FROM waits
    WHERE from_t < to_t
    WINDOW w AS (PARTITION BY pk ORDER BY cert, from_t, to_t)
),
trimmed AS (
    SELECT
        pk,
        CASE WHEN prev_from <= from_t THEN greatest(from_t, prev_to) ELSE from_t END AS from_t,
        CASE WHEN prev_from > from_t AND prev_to >= to_t THEN least(to_t, prev_from) ELSE to_t END
            AS to_t,
        cert
    FROM previous
)
SELECT pk, from_t, to_t, cert
FROM trimmed
WHERE from_t < to_t
