-- overclaim: a won write's claim is above its partition's refutation bound at its
-- written_at (§4.10), with the first cause that applies.
WITH over AS (
    SELECT w.*
    FROM rc_write_certs AS w
    WHERE w.claim IS NOT NULL AND w.comparable
      AND w.refutation IS NOT NULL AND w.claim > w.refutation
),
seen AS (
    -- when each position of the overclaiming writes' partitions was first seen (a
    -- receipt counted at T, or a snapshot row visible at T, of a snapshot-evidence
    -- partition), each event at its sort position: the lowest of its positions, which
    -- differs only for mutated events; the rows of those few partitions read as they
    -- are, each seen from its own visible_at (from the start where null)
    SELECT rc_pk(r.scope_id, r.partition_id) AS pk, r.recorded_at AS seen_at,
           coalesce(m.sort_pos, r.position) AS sort_pos
    FROM receipts AS r
    SEMI JOIN over AS o ON o.scope_id = r.scope_id AND o.partition_id = r.partition_id
    LEFT JOIN rc_mutated AS m
        ON m.pk = rc_pk(r.scope_id, r.partition_id) AND m.event_id = r.event_id
    WHERE r.recorded_at <= rc_as_of()
    UNION ALL
    SELECT rc_pk(s.scope_id, s.partition_id) AS pk, coalesce(s.visible_at, rc_dawn()),
           coalesce(m.sort_pos, s.position)
    FROM snapshot AS s
    SEMI JOIN over AS o ON o.scope_id = s.scope_id AND o.partition_id = s.partition_id
    SEMI JOIN rc_partitions AS p
        ON p.scope_id = s.scope_id AND p.partition_id = s.partition_id AND p.evidence = 'snapshot'
    LEFT JOIN rc_mutated AS m
        ON m.pk = rc_pk(s.scope_id, s.partition_id) AND m.event_id = s.event_id
    WHERE s.visible_at IS NULL OR s.visible_at <= rc_as_of()
),
highest AS (
    -- the highest known position at written_at, for the overclaiming writes only
    SELECT o.write_id, max(k.sort_pos) AS highest
    FROM over AS o
    JOIN seen AS k ON k.pk = rc_pk(o.scope_id, o.partition_id)
    WHERE k.seen_at <= o.written_at
    GROUP BY o.write_id
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
                           AND g.event_count = 0 AND g.finality_through IS NULL) THEN 'empty_page'
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
