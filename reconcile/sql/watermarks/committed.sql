-- The committed watermark (§4.6): the last eligible durable event before the
-- blocking point.
SELECT
    e.scope_id,
    e.partition_id,
    max({'p': e.sort_pos, 'k': 1, 'e': e.event_id, 's': 0}) AS committed
FROM rc_known_events AS e
JOIN rc_blocking AS b USING (scope_id, partition_id)
WHERE e.eligible AND e.durable
  AND (b.block IS NULL OR {'p': e.sort_pos, 'k': 1, 'e': e.event_id, 's': 0} < b.block)
GROUP BY e.scope_id, e.partition_id
