-- Each partition's claim as a step function (§4.11): at every instant with won
-- writes, the latest of them (by generation, then attempt_id, then the tie-break of
-- watermarks/claims.sql) gives the claim.
SELECT
    c.scope_id,
    c.partition_id,
    c.written_at AS from_t,
    arg_max(
        {'watermark': c.watermark, 'inclusive': c.watermark_inclusive,
         'generation': c.generation, 'attempt_id': c.attempt_id, 'ordering': c.ordering},
        {'g': c.generation, 'a': c.attempt_id, 't': rc_write_tie(c, s.discrete)}
    ) AS latest
FROM checkpoints AS c
JOIN rc_scopes AS s USING (scope_id)
WHERE c.cas_result = 'won' AND c.written_at <= rc_as_of()
GROUP BY c.scope_id, c.partition_id, c.written_at
