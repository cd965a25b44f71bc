-- ordering_mutated: an event_id appears at two different positions.
SELECT
    'ordering_mutated' AS rule, 'critical' AS severity,
    k.scope_id, k.partition_id, NULL::BIGINT AS epoch, rc_as_of() AS at, k.event_id,
    NULL AS attempt_id, NULL::BIGINT AS generation, NULL AS page_id,
    'event ' || k.event_id || ' was seen at ' || CAST(k.sort_pos AS VARCHAR) || ' and at '
        || CAST(k.top_pos AS VARCHAR) AS message,
    to_json({'positions': [s.position FOR s IN m.sightings],
             'first_seen': [s.seen_at FOR s IN m.sightings]}) AS evidence
FROM rc_known_events AS k
LEFT JOIN rc_mutations AS m USING (scope_id, partition_id, event_id)
WHERE k.mutated
