-- For rule late_insert, the snapshot events of the slice at several positions
-- (rc_several_positions), their rows read again: at each position, when the event
-- appeared there, its first eligible row there visible by T. None where an eligible
-- row was there from the start (visible_at null): the event never appeared there.
SELECT p.pk, s.event_id, s.position AS appeared_pos, min(s.visible_at) AS appeared_at
FROM snapshot AS s
JOIN rc_partitions AS p
    ON p.scope_id = s.scope_id AND p.partition_id = s.partition_id AND p.evidence = 'snapshot'
SEMI JOIN rc_several_positions AS m ON m.pk = p.pk AND m.event_id = s.event_id
WHERE s.eligible AND (s.visible_at IS NULL OR s.visible_at <= rc_as_of())
  AND s.partition_id BETWEEN $slice_first AND $slice_last
GROUP BY p.pk, s.event_id, s.position
HAVING count(*) = count(s.visible_at)
