-- Each partition's claim at T (§4.11): its latest won checkpoint counted at T, by
-- written_at, then generation, then attempt_id. Writes that tie on all three (the
-- contract gives them no order) are ordered by their state, so that the result never
-- depends on the order of the rows in the files, and the strongest claim is the
-- latest (a null watermark first, then by certificate); audit/won_writes and
-- history/claim_steps order ties alike.
SELECT
    c.scope_id,
    c.partition_id,
    arg_max(
        {'watermark': c.watermark, 'inclusive': c.watermark_inclusive, 'generation': c.generation,
         'ordering': c.ordering, 'event_id': c.watermark_event_id},
        {'w': c.written_at, 'g': c.generation, 'a': c.attempt_id,
         't': rc_write_tie(c, s.discrete)}
    ) AS latest
FROM checkpoints AS c
JOIN rc_scopes AS s USING (scope_id)
WHERE c.cas_result = 'won' AND c.written_at <= rc_as_of()
GROUP BY c.scope_id, c.partition_id
