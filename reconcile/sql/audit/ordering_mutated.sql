-- ordering_mutated: an event_id appears at two different positions. A sighting that
-- was there from the start (a snapshot row whose visible_at is null) was first seen at
-- no time: null in the evidence, not the engine's dawn.
SELECT
    'ordering_mutated' AS rule, 'critical' AS severity,
    p.scope_id, p.partition_id, NULL::BIGINT AS epoch, rc_as_of() AS at, k.event_id,
    NULL::VARCHAR AS attempt_id, NULL::BIGINT AS generation, NULL::VARCHAR AS page_id,
    'event ' || k.event_id || ' was seen at ' || CAST(k.sort_pos AS VARCHAR) || ' and at '
        || CAST(list_max([s.position FOR s IN m.sightings]) AS VARCHAR) AS message,
    to_json({'positions': [s.position FOR s IN m.sightings],
             'first_seen': [nullif(s.seen_at, rc_dawn()) FOR s IN m.sightings]}) AS evidence
FROM rc_open_events AS k
JOIN rc_partitions AS p USING (pk)
LEFT JOIN rc_mutations AS m
    ON m.scope_id = p.scope_id AND m.partition_id = p.partition_id AND m.event_id = k.event_id
WHERE k.mutated
