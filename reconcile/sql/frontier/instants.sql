-- The instants of §4.15, per scope: every distinct written_at of its won checkpoints
-- and every effective_at of its epochs up to T, each with the epoch in force then
-- (§4.12); also the instants the audit needs the frontier at (`history` false).
-- Instants are numbered across scopes (scope by scope, in time order), so
-- that intervals of instant numbers never straddle two scopes.
WITH raw AS (
    SELECT scope_id, written_at AS t, true AS history FROM checkpoints
    WHERE cas_result = 'won' AND written_at <= rc_as_of()
    UNION ALL
    SELECT scope_id, effective_at, true FROM epochs WHERE effective_at <= rc_as_of()
    UNION ALL
    -- instants the audit evaluates the frontier at, outside the history: each
    -- publication, and the last instant strictly before each epoch's effective_at
    SELECT scope_id, published_at, false FROM published WHERE published_at <= rc_as_of()
    UNION ALL
    SELECT scope_id, make_timestamp_ns(epoch_ns(effective_at) - 1), false FROM epochs
    WHERE effective_at <= rc_as_of()
),
distinct_instants AS (
    SELECT scope_id, t, bool_or(history) AS history FROM raw GROUP BY scope_id, t
),
numbered AS (
    SELECT scope_id, t, history, row_number() OVER (ORDER BY scope_id, t) - 1 AS idx
    FROM distinct_instants
),
starts AS (
    SELECT scope_id, effective_at, max(epoch) AS epoch FROM rc_epochs GROUP BY scope_id, effective_at
)
SELECT n.scope_id, n.t, n.idx, n.history, s.epoch, coalesce(es.proven, false) AS proven,
       coalesce(es.members, 0) AS members
FROM numbered AS n
ASOF LEFT JOIN starts AS s ON s.scope_id = n.scope_id AND s.effective_at <= n.t
LEFT JOIN rc_epoch_status AS es ON es.scope_id = n.scope_id AND es.epoch = s.epoch
