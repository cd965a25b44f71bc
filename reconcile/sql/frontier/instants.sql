-- The instants of §4.15, per scope: every distinct written_at of its won checkpoints
-- and every effective_at of its epochs up to T, each with the epoch in force then
-- (§4.12). Instants are numbered across scopes (scope by scope, in time order), so
-- that intervals of instant numbers never straddle two scopes.
WITH raw AS (
    SELECT scope_id, written_at AS t FROM checkpoints
    WHERE cas_result = 'won' AND written_at <= rc_as_of()
    UNION
    SELECT scope_id, effective_at FROM epochs WHERE effective_at <= rc_as_of()
),
numbered AS (
    SELECT scope_id, t, row_number() OVER (ORDER BY scope_id, t) - 1 AS idx
    FROM raw
),
starts AS (
    SELECT scope_id, effective_at, max(epoch) AS epoch FROM rc_epochs GROUP BY scope_id, effective_at
)
SELECT n.scope_id, n.t, n.idx, s.epoch, coalesce(es.proven, false) AS proven,
       coalesce(es.members, 0) AS members
FROM numbered AS n
ASOF LEFT JOIN starts AS s ON s.scope_id = n.scope_id AND s.effective_at <= n.t
LEFT JOIN rc_epoch_status AS es ON es.scope_id = n.scope_id AND es.epoch = s.epoch
