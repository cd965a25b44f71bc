-- Per partition at T: the first known event that is not passable (§4.6), and the
-- counts of §6. The first blocking event is looked for among the few events that
-- are not passable only.
WITH counts AS (
    SELECT
        pk,
        count(*) FILTER (WHERE eligible) AS eligible_events,
        count(*) FILTER (WHERE eligible AND durable) AS durable_events,
        count(*) FILTER (WHERE replayed) AS replayed_events
    FROM rc_known_events
    GROUP BY pk
),
blocked AS (
    SELECT
        pk,
        min({'p': sort_pos, 'k': 1, 'e': event_id, 's': 0}) AS event_block,
        arg_min(reason, {'p': sort_pos, 'k': 1, 'e': event_id, 's': 0}) AS event_reason
    FROM rc_known_events
    WHERE NOT passable
    GROUP BY pk
)
SELECT c.pk, b.event_block, b.event_reason, c.eligible_events, c.durable_events, c.replayed_events
FROM counts AS c
LEFT JOIN blocked AS b USING (pk)
