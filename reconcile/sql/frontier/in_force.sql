-- The epoch in force at T per scope (§4.12): the latest with effective_at <= T, the
-- higher one when two share it; none before the scope's first effective_at.
SELECT s.scope_id, f.epoch, es.proven, coalesce(es.members, 0) AS members
FROM rc_scopes AS s
LEFT JOIN (
    SELECT scope_id, arg_max(epoch, {'t': effective_at, 'e': epoch}) AS epoch
    FROM rc_epoch_status
    WHERE effective_at <= rc_as_of()
    GROUP BY scope_id
) AS f USING (scope_id)
LEFT JOIN rc_epoch_status AS es ON es.scope_id = s.scope_id AND es.epoch = f.epoch
