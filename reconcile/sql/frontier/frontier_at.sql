-- The frontier of one basis at every instant of rc_instants (history or not):
-- its epoch, kind and value, from the per-instant counts (rc_hist_counts) and
-- minimum (rc_hist_min). A template: each basis' step binds those two names to its
-- own tables (reconcile/engine/steps/frontier.py).
SELECT
    i.scope_id,
    $basis AS basis,
    i.idx,
    i.t,
    i.history,
    i.epoch,
    CASE WHEN i.epoch IS NOT NULL AND i.members > 0 AND c.no_cert = 0 AND c.unknown = 0
              AND c.incomparable = 0 AND i.proven THEN 'scalar' ELSE 'vector' END AS kind,
    CASE WHEN i.epoch IS NOT NULL AND i.members > 0 AND c.no_cert = 0 AND c.unknown = 0
              AND c.incomparable = 0 AND i.proven THEN m.v END AS frontier
FROM rc_instants AS i
JOIN rc_hist_counts AS c USING (scope_id, idx)
LEFT JOIN rc_hist_min AS m USING (scope_id, idx)
