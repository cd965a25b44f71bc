-- The committed watermark (§4.6): the last eligible durable event before the
-- blocking point. Its position first (a plain maximum over the events), then the
-- last event_id at that position (few events share one).
WITH below AS (
    SELECT e.pk, max(e.sort_pos) AS p
    FROM rc_known_events AS e
    JOIN rc_blocking AS b USING (pk)
    WHERE e.eligible AND e.durable
      AND (b.block IS NULL OR e.sort_pos < b.block.p
           OR (e.sort_pos = b.block.p AND {'p': e.sort_pos, 'k': 1, 'e': e.event_id, 's': 0} < b.block))
    GROUP BY e.pk
)
SELECT
    e.pk,
    {'p': any_value(below.p), 'k': 1, 'e': max(e.event_id), 's': 0} AS committed
FROM rc_known_events AS e
JOIN below ON below.pk = e.pk AND below.p = e.sort_pos
JOIN rc_blocking AS b ON b.pk = e.pk
WHERE e.eligible AND e.durable
  AND (b.block IS NULL OR {'p': e.sort_pos, 'k': 1, 'e': e.event_id, 's': 0} < b.block)
GROUP BY e.pk
