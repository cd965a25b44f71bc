-- overclaim: a won write's claim is above its partition's refutation bound at its
-- written_at (§4.10), with the first cause that applies.
WITH over AS (
    SELECT w.*
    FROM rc_write_certs AS w
    WHERE w.claim IS NOT NULL AND w.comparable
      AND w.refutation IS NOT NULL AND w.claim > w.refutation
),
seen AS (
    -- each sighting of a position in the overclaiming writes' partitions (a receipt
    -- counted at T, or a snapshot row visible at T, of a snapshot-evidence
    -- partition), from its own recorded_at or visible_at (from the start where
    -- null); the sightings of a mutated event (few) carry its event_id, as its
    -- position at written_at is the lowest of its sightings by then (§4.5), not the
    -- lowest by T: a lower position seen after the write did not lower what was
    -- known at it
    SELECT rc_pk(r.scope_id, r.partition_id) AS pk, r.recorded_at AS seen_at,
           r.position, m.event_id AS mutated_id
    FROM receipts AS r
    SEMI JOIN over AS o ON o.scope_id = r.scope_id AND o.partition_id = r.partition_id
    LEFT JOIN rc_mutated AS m
        ON m.pk = rc_pk(r.scope_id, r.partition_id) AND m.event_id = r.event_id
    WHERE r.recorded_at <= rc_as_of()
    UNION ALL
    SELECT rc_pk(s.scope_id, s.partition_id) AS pk, coalesce(s.visible_at, rc_dawn()),
           s.position, m.event_id
    FROM snapshot AS s
    SEMI JOIN over AS o ON o.scope_id = s.scope_id AND o.partition_id = s.partition_id
    SEMI JOIN rc_partitions AS p
        ON p.scope_id = s.scope_id AND p.partition_id = s.partition_id AND p.evidence = 'snapshot'
    LEFT JOIN rc_mutated AS m
        ON m.pk = rc_pk(s.scope_id, s.partition_id) AND m.event_id = s.event_id
    WHERE s.visible_at IS NULL OR s.visible_at <= rc_as_of()
),
highest AS (
    -- the highest known position at written_at, for the overclaiming writes only:
    -- of the events seen at one position, the highest sighting by then; of a
    -- mutated one, its lowest sighting by then
    SELECT write_id, max(pos) AS highest
    FROM (
        SELECT o.write_id, max(k.position) AS pos
        FROM over AS o
        JOIN seen AS k ON k.pk = rc_pk(o.scope_id, o.partition_id)
        WHERE k.seen_at <= o.written_at AND k.mutated_id IS NULL
        GROUP BY o.write_id
        UNION ALL
        SELECT o.write_id, min(k.position) AS pos
        FROM over AS o
        JOIN seen AS k ON k.pk = rc_pk(o.scope_id, o.partition_id)
        WHERE k.seen_at <= o.written_at AND k.mutated_id IS NOT NULL
        GROUP BY o.write_id, k.mutated_id
    )
    GROUP BY write_id
),
caused AS (
    SELECT
        o.*,
        h.highest,
        CASE
            WHEN EXISTS (SELECT 1 FROM rc_token_writes AS t
                         WHERE t.scope_id = o.scope_id AND t.partition_id = o.partition_id
                           AND t.attempt_id = o.attempt_id AND t.generation = o.generation
                           AND t.written_at = o.written_at) THEN 'token'
            WHEN EXISTS (SELECT 1 FROM pages AS g
                         WHERE g.scope_id = o.scope_id AND g.page_id = o.page_id
                           AND g.event_count = 0 AND g.finality_through IS NULL
                           AND g.fetched_at <= rc_as_of()) THEN 'empty_page'
            WHEN o.consumer IS NOT NULL AND o.claim > o.consumer THEN 'past_blocking_event'
            -- compared as certificates (§2): a discrete (6, exclusive) is 5 inclusive
            WHEN h.highest IS NOT NULL AND o.claim.v = h.highest AND o.claim.i = 1
                THEN 'observed_max'
            ELSE 'unknown'
        END AS cause
    FROM over AS o
    LEFT JOIN highest AS h USING (write_id)
)
SELECT
    'overclaim' AS rule, 'error' AS severity,
    scope_id, partition_id, NULL::BIGINT AS epoch, written_at AS at, NULL::VARCHAR AS event_id,
    attempt_id, generation, page_id,
    'claim through ' || rc_through_text(watermark, watermark_inclusive)
        || ' is above what the evidence allows ('
        || coalesce(CAST(refutation.v AS VARCHAR), '?') || CASE WHEN refutation.i = 1 THEN ' inclusive'
        ELSE ' exclusive' END || '); cause: ' || cause AS message,
    -- certificates in inclusive form (§6), the write's watermark as written beside them
    to_json({'cause': cause, 'claimed_through': claim.v, 'claimed_inclusive': claim.i = 1,
             'watermark': watermark, 'watermark_inclusive': watermark_inclusive,
             'refutation_through': refutation.v, 'refutation_inclusive': refutation.i = 1,
             'consumer_through': consumer.v, 'consumer_inclusive': consumer.i = 1,
             'provider_through': provider.v, 'provider_inclusive': provider.i = 1,
             'highest_known_position': highest, 'resume_token': resume_token}) AS evidence
FROM caused
