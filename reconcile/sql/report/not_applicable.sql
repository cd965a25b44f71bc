-- The rules that do not apply to a scope, and why: for a scope whose checkpoints were
-- written without compare-and-swap (docs/contract.md §3), the rules that read it.
-- One row per (scope_id, rule), in that order.
SELECT DISTINCT
    c.scope_id,
    r.rule,
    'no compare-and-swap in these logs' AS reason
FROM checkpoints AS c
CROSS JOIN (
    SELECT unnest(['cas_chain_broken', 'stale_owner_won', 'mixed_checkpoint']) AS rule
) AS r
WHERE c.__overwrite
ORDER BY c.scope_id, r.rule
