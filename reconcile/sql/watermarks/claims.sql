-- Each partition's claim at T (§4.11): its latest won checkpoint counted at T, by
-- written_at, then generation, then attempt_id.
SELECT
    scope_id,
    partition_id,
    arg_max(
        {'watermark': watermark, 'inclusive': watermark_inclusive, 'generation': generation,
         'ordering': ordering, 'event_id': watermark_event_id},
        {'w': written_at, 'g': generation, 'a': attempt_id}
    ) AS latest
FROM checkpoints
WHERE cas_result = 'won' AND written_at <= rc_as_of()
GROUP BY scope_id, partition_id
