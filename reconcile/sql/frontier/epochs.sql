-- Each scope's epochs (§3, §4.12): its rows in `epochs`; a scope without any has
-- epoch 1 from the beginning of time. `cutover` is the normalized certificate,
-- `cutover_unknown` a cutover whose endpoint is unknown (it proves nothing).
SELECT
    e.scope_id,
    e.epoch,
    e.effective_at,
    rc_cert(e.cutover, e.cutover_inclusive, s.discrete) AS cutover,
    e.cutover IS NOT NULL AND e.cutover_inclusive IS NULL AS cutover_unknown,
    e.cutover AS cutover_through,
    e.cutover_inclusive,
    s.discrete,
    true AS declared
FROM epochs AS e
JOIN rc_scopes AS s USING (scope_id)
UNION ALL
SELECT s.scope_id, 1, rc_dawn(), NULL, false, NULL, NULL, s.discrete, false
FROM rc_scopes AS s
WHERE NOT EXISTS (SELECT 1 FROM epochs AS e WHERE e.scope_id = s.scope_id)
