-- Per partition at T: the first known event that is not passable (§4.6), and the
-- counts of §6.
SELECT
    scope_id,
    partition_id,
    min({'p': sort_pos, 'k': 1, 'e': event_id, 's': 0}) FILTER (WHERE NOT passable) AS event_block,
    arg_min(reason, {'p': sort_pos, 'k': 1, 'e': event_id, 's': 0}) FILTER (WHERE NOT passable)
        AS event_reason,
    count(*) FILTER (WHERE eligible) AS eligible_events,
    count(*) FILTER (WHERE eligible AND durable) AS durable_events,
    count(*) FILTER (WHERE n_durable > 1) AS replayed_events
FROM rc_known_events
GROUP BY scope_id, partition_id
